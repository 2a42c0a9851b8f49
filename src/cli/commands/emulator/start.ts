import { resolve } from 'node:path';
import { readyLine, startEmulator, type ReadyInfo } from '../../../../emulator/server.js';
import { redactSecrets } from '../../../logging/redact.js';
import { ExitError } from '../../errors.js';
import { DEFAULT_DATA_DIR, type StartOptions } from './index.js';
import { loadBundleForStart, restoredNote } from './export.js';

/** `merchant-kit emulator start`: listens, prints the ready line, stops cleanly on SIGINT/SIGTERM. */
export async function startAction(options: StartOptions): Promise<void> {
  if (options.data && options.memory) throw new ExitError('Use either --data or --memory, not both.', 2);
  const bundle = options.from ? await loadBundleForStart(options.from) : null;
  let running;
  try {
    running = await startEmulator({
      from: bundle && options.from ? { bundle, file: options.from } : undefined,
      port: options.port,
      host: options.host,
      data: options.data,
      memory: options.memory,
      clock: options.clock,
      limits: options.limits === 'on',
      seed: options.seed,
      adminToken: options.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN,
      allowedHosts: options.allowedHost,
      logger: options.verbose ?? false,
    });
  } catch (error) {
    // A bundle that the schema refuses (found while it is loaded) is named like one refused on reading.
    if ((error as Error).name === 'BundleError') throw new ExitError(`error: cannot start from ${options.from}: ${(error as Error).message}`);
    throw new ExitError(`Could not start the emulator: ${redactSecrets((error as Error).message)}`);
  }
  for (const notice of running.notices) process.stderr.write(`${notice}\n`);
  // Before the ready line: a supervisor may send a signal as soon as it reads it.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping the emulator…\n`);
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const ready = readyLine(running);
  if (options.json) process.stdout.write(`${JSON.stringify(ready)}\n`);
  else process.stdout.write(`${banner(ready, options.memory ? null : resolve(options.data ?? DEFAULT_DATA_DIR))}\n`);
  if (bundle && !options.json) process.stdout.write(restoredNote(options.from!, ready));
}

/** The human start-up text: where to call, who you are, where the data lives. */
export function banner(ready: ReadyInfo, dataDir: string | null): string {
  const width = Math.max(...ready.stores.map((s) => s.environment.length));
  return [
    `Emulator listening on ${ready.url} (pid ${ready.pid})`,
    `  live API:     ${ready.live_base_url}`,
    `  sandbox API:  ${ready.sandbox_base_url}`,
    `  control API:  ${ready.admin_url}`,
    `  data:         ${dataDir ?? 'in memory (lost on exit)'}`,
    '',
    'Demo stores (credentials are shown once, here; save them in a profile):',
    ...ready.stores.flatMap((s) => [
      `  ${s.environment.padEnd(width)}  store ${s.store_id}  integration ${s.integration_id}`,
      `  ${' '.repeat(width)}  credential ${s.credential}`,
    ]),
    '',
    'Press Ctrl+C to stop.',
  ].join('\n');
}
