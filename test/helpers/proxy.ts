import { runCli, type CliProcess } from './cli.js';
import { PATIENCE_MS, waitFor } from './wait.js';

export interface ProxyCli {
  proc: CliProcess;
  /** The proxy's base address (same path prefix as --to). */
  url: string;
  /** The NDJSON exchanges printed so far (with --json). */
  exchanges(): any[];
  /** Resolves once `n` exchanges have been printed. */
  waitFor(n: number): Promise<any[]>;
  stop(): Promise<{ code: number | null }>;
}

/** Polls `probe` every 20 ms until it gives a value; throws with `what()` once `ms` (grown with the load: helpers/wait.ts) has passed. */
export async function until<T>(probe: () => T | undefined, what: () => string, ms = PATIENCE_MS): Promise<T> {
  return waitFor(() => probe(), what, { limitMs: ms }) as Promise<T>;
}

/** `merchant-kit proxy --to <to> --port 0 --json …` as a subprocess, once it listens. */
export async function startProxyCli(to: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ProxyCli> {
  const proc = runCli(['proxy', '--to', to, '--port', '0', '--json', ...args], env);
  const url = await until(
    () => /Proxy listening on (\S+)/.exec(proc.stderr())?.[1],
    () => `proxy start; stderr: ${proc.stderr()}`,
  );
  // Its first line is the ready line (`{"event":"ready",…,"pid"}`), not an exchange.
  const exchanges = () => proc.lines.map((l) => JSON.parse(l)).filter((line) => line?.event !== 'ready');
  return {
    proc,
    url,
    exchanges,
    waitFor: (n) => until(() => (exchanges().length >= n ? exchanges() : undefined), () => `${n} exchanges, got ${exchanges().length}`),
    async stop() {
      proc.child.kill('SIGTERM');
      return proc.exited;
    },
  };
}
