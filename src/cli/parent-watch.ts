// Under npm (`npx merchant-kit …`, `npm start`, `npm run …`) the CLI is not npm's child: npm runs a
// shell (`sh -c "merchant-kit …"`) that runs it. A SIGTERM to npm is passed to that shell, which ends
// at once and leaves the CLI running with nobody to stop it: a `listen` kept its port (issue 27). So
// the CLI watches the process that started it, and stops as on SIGTERM when it goes away.

/**
 * Set in the environment of the emulator that `start --detach` spawns: that one is meant to outlive
 * its parent (it reports its start over IPC, then runs on alone).
 */
export const DETACHED_CHILD = 'MERCHANT_KIT_DETACHED_CHILD';

/** How often the parent is looked at: a stopped npm's command follows it within about a second. */
const WATCH_INTERVAL_MS = 1000;

/**
 * When npm started this process (npm sets `npm_lifecycle_event`: `npx`, `start`…), sends it SIGTERM
 * once its parent is gone (the parent's pid changed: it was re-parented), so that a long-running
 * command stops cleanly by its own SIGTERM handling. Anywhere else it does nothing: a command run by
 * `nohup` or left running by a shell that exited is meant to run on. The timer never keeps the
 * process alive. Returns a function that stops watching.
 */
export function stopWhenParentGoes(env: NodeJS.ProcessEnv = process.env): () => void {
  if (env.npm_lifecycle_event === undefined || env[DETACHED_CHILD]) return () => undefined;
  const parent = process.ppid;
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
