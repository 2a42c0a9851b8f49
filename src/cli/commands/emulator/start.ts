import { readyLine, startEmulator } from '../../../../emulator/server.js';
import { ExitError } from '../../errors.js';
import type { StartOptions } from './index.js';

/** `merchant-kit emulator start`: listens, prints the ready line, stops cleanly on SIGINT/SIGTERM. */
export async function startAction(options: StartOptions): Promise<void> {
  if (options.data && options.memory) throw new ExitError('Use --data o --memory, no ambos.', 2);
  let running;
  try {
    running = await startEmulator({
      port: options.port,
      host: options.host,
      data: options.data,
      memory: options.memory,
      clock: options.clock,
      limits: options.limits === 'on',
      seed: options.seed,
      adminToken: options.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN,
      logger: options.verbose ?? false,
    });
  } catch (error) {
    throw new ExitError(`No se pudo iniciar el emulador: ${(error as Error).message}`);
  }
  // Before the ready line: a supervisor may send a signal as soon as it reads it.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: deteniendo el emulador…\n`);
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const ready = readyLine(running);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  } else {
    const lines = [
      `Emulador escuchando en ${ready.url}`,
      `  live:    ${ready.live_base_url}`,
      `  sandbox: ${ready.sandbox_base_url}`,
      `  control: ${ready.admin_url}`,
      ...ready.stores.map((s) => `  tienda ${s.environment}: ${s.store_id}  credencial: ${s.credential}`),
      'Ctrl+C para detener.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
