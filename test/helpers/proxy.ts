import { runCli, type CliProcess } from './cli.js';

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

/** Polls `probe` every 20 ms until it gives a value; throws with `what()` after `ms`. */
export async function until<T>(probe: () => T | undefined, what: () => string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
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
