/**
 * A value now or later. The hot calls of the port (a rate window, a fault lookup) answer at once on
 * the embedded adapter and through a round trip on a database server: callers take both without
 * paying a promise and a turn of the event loop where the answer is already there.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `then` for a MaybePromise: synchronous when the value is there. */
export function whenReady<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(next) : next(value);
}
