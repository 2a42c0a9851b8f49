// Things to close once a command's action has finished (HTTP connection pools), so the process
// exits at once instead of waiting for idle keep-alive sockets. A long-running command
// (`listen`, `feed tail`) resolves its action only when it stops, so its pools stay open meanwhile.

const cleanups: (() => unknown)[] = [];

/** Registers `fn` to run after the action (success or failure). */
export function onCleanup(fn: () => unknown): void {
  cleanups.push(fn);
}

/** Runs and forgets every registered cleanup; failures are ignored (the command's result stands). */
export async function runCleanups(): Promise<void> {
  const fns = cleanups.splice(0);
  await Promise.allSettled(fns.map(async (fn) => fn()));
}
