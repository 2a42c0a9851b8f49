import { availableParallelism, loadavg } from 'node:os';

// Time limits in tests (docs/contributing.md, "Time limits in tests"): a test waits for an event
// that is sure to happen (a line printed, a request arriving, a process exiting, a state reached),
// and its limit only bounds a hang. No limit may fire because the machine is slow or busy: each is
// sized far above the slowest healthy time, and grows with the machine's load.

/** The limit of a wait for something sure to happen, on a quiet machine: it only bounds a hang. */
export const PATIENCE_MS = 30_000;

/** How much slower than a quiet machine this one runs now: the run queue per core (1 when idle). */
export function loadFactor(): number {
  const cores = availableParallelism();
  return Math.max(1, loadavg()[0]! / cores);
}

/**
 * A deadline `ms` after now that follows the machine's load: it has passed only once `ms` times the
 * load factor (read when asked, so a load that rises meanwhile moves it out) has gone by.
 */
export function loadDeadline(ms: number = PATIENCE_MS): { passed(): boolean; elapsedMs(): number; limitMs(): number } {
  const started = Date.now();
  const limitMs = () => Math.round(ms * loadFactor());
  return {
    passed: () => Date.now() - started > limitMs(),
    elapsedMs: () => Date.now() - started,
    limitMs,
  };
}

/**
 * A limit for a library that takes a plain number (Playwright's default timeout): `ms` grown with the
 * load as it is now, kept under vitest's 300 s test limit so that a stuck step names itself.
 */
export function patienceNow(ms: number = PATIENCE_MS): number {
  return Math.min(Math.round(ms * loadFactor()), 250_000);
}

export interface WaitOptions {
  /** The limit on a quiet machine (PATIENCE_MS by default), scaled by the load. */
  limitMs?: number;
  /** How often to look when the condition has no event (20 ms by default). */
  intervalMs?: number;
}

/**
 * Polls `probe` until it gives a value other than `undefined`, `null` or `false` and returns it; for
 * conditions that fire no event (a file appears, a row changes). Fails with `what()` (what was
 * expected and what was seen) only once the load-following limit has passed.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: () => string,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = loadDeadline(options.limitMs);
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (deadline.passed()) throw new Error(`waited ${(deadline.elapsedMs() / 1000).toFixed(1)} s in vain: ${what()}`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 20));
  }
}

/**
 * Calls `onExpire` once `ms` times the load factor has passed since now (the factor read again when
 * the first `ms` are over, so a machine that got busier meanwhile gets more time). `cancel()` stops it.
 */
export function loadTimer(ms: number, onExpire: (elapsedMs: number) => void): { cancel(): void; elapsedMs(): number } {
  const deadline = loadDeadline(ms);
  let timer: NodeJS.Timeout;
  const check = () => {
    if (deadline.passed()) onExpire(deadline.elapsedMs());
    else timer = setTimeout(check, Math.max(100, deadline.limitMs() - deadline.elapsedMs()));
  };
  timer = setTimeout(check, ms);
  return { cancel: () => clearTimeout(timer), elapsedMs: deadline.elapsedMs };
}

/**
 * Settles with `promise`, or rejects with `what()` once the load-following limit has passed: a
 * deadline for an event that is sure to come (a line, an exit).
 */
export function withinPatience<T>(promise: Promise<T>, what: () => string, limitMs: number = PATIENCE_MS): Promise<T> {
  let timer: { cancel(): void } | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = loadTimer(limitMs, (elapsed) => reject(new Error(`waited ${(elapsed / 1000).toFixed(1)} s in vain: ${what()}`)));
  });
  return Promise.race([promise, expired]).finally(() => timer?.cancel());
}

/**
 * Resolves once the real clock has moved `ms` past `since`: for tests whose subject is the passing
 * of real time (a system clock, a real-minute budget), never to give something else time to happen.
 */
export async function realTimePassed(since: number, ms: number): Promise<void> {
  for (let left = since + ms - Date.now(); left > 0; left = since + ms - Date.now()) {
    await new Promise((r) => setTimeout(r, left));
  }
}

/** Whether a process of this id runs (signal 0 asks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once process `pid` is gone (something sure to happen: it was told to stop). */
export async function processGone(pid: number): Promise<void> {
  await waitFor(() => !processAlive(pid), () => `process ${pid} to exit`, { intervalMs: 50 });
}
