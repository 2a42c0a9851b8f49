import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExitError } from '../../errors.js';
import { apiTarget, configureWebhook, readFeed, type ApiTarget } from './api.js';
import { parseForwardUrl } from './forward.js';
import type { ListenOptions } from './index.js';
import { printer, type ListenRecord } from './output.js';
import { createReceiver } from './receiver.js';
import { findSecret, MISSING_SECRET } from './secret.js';

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function localUrl(address: AddressInfo, path: string): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${path}`;
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Resolves once SIGINT or SIGTERM arrived and the server closed, so the process ends with code 0. */
function untilSignal(server: http.Server): { stopped: Promise<void>; detach: () => void } {
  let detach = () => {};
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      detach();
      process.stderr.write(`${signal}: deteniendo el receptor…\n`);
      void close(server).then(resolve);
    };
    detach = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { stopped, detach };
}

/** Prints the whole feed as already-received events and marks them seen, so later deliveries show as duplicates. */
async function backfill(target: ApiTarget, seen: Set<string>, report: (record: ListenRecord) => void): Promise<void> {
  for await (const event of readFeed(target)) {
    const event_id = String(event.id);
    const duplicate = seen.has(event_id);
    seen.add(event_id);
    const type = typeof event.type === 'string' ? event.type : 'desconocido';
    report({ kind: 'event', received_at: new Date().toISOString(), event_id, delivery_id: null, type, duplicate, event, backfill: true });
  }
}

/** `merchant-kit listen`: prints the URL, then one line per delivery until interrupted. */
export async function listenAction(options: ListenOptions): Promise<void> {
  const forwardTo = options.forwardTo ? parseForwardUrl(options.forwardTo) : undefined;
  const target = options.configure !== undefined || options.backfill ? apiTarget(options.baseUrl) : null;
  let secret = await findSecret({ env: process.env.MERCHANT_KIT_WEBHOOK_SECRET, stdin: options.secretStdin, flag: options.secret });
  // With --configure the API hands out the secret when it creates the webhook.
  if (secret === null && options.configure === undefined) throw new ExitError(MISSING_SECRET, 2);
  if (options.secret !== undefined) {
    process.stderr.write('Aviso: --secret queda visible en la lista de procesos; prefiera MERCHANT_KIT_WEBHOOK_SECRET o --secret-stdin.\n');
  }
  const report = printer(options.json);
  const seen = new Set<string>();
  const server = http.createServer(createReceiver({ secret: () => secret, seen, path: options.path, forwardTo, report }));
  let address: AddressInfo;
  try {
    address = await listen(server, options.port, options.host);
  } catch (error) {
    throw new ExitError(`No se pudo escuchar en ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  const { stopped, detach } = untilSignal(server);
  try {
    const url = localUrl(address, options.path);
    let configured: { url: string; created: boolean } | null = null;
    if (target && options.configure !== undefined) {
      const webhookUrl = options.configure === true ? url : options.configure;
      const result = await configureWebhook(target, webhookUrl);
      secret = result.secret ?? secret;
      if (secret === null) {
        throw new ExitError(
          'El webhook ya existía y su secreto solo se entrega al crearlo: páselo con MERCHANT_KIT_WEBHOOK_SECRET o --secret-stdin.',
          2,
        );
      }
      configured = { url: webhookUrl, created: result.created };
    }
    if (options.json) {
      const ready = { event: 'ready', url, forward_to: forwardTo?.href ?? null, configured_url: configured?.url ?? null };
      process.stdout.write(`${JSON.stringify(ready)}\n`);
    } else {
      const via = forwardTo ? `, reenviando a ${forwardTo.href}` : '';
      process.stdout.write(`Escuchando webhooks en ${url}${via}. Ctrl+C para detener.\n`);
      if (configured) process.stdout.write(`Webhook ${configured.created ? 'creado' : 'actualizado'} con la URL ${configured.url}\n`);
    }
    if (target && options.backfill) await backfill(target, seen, report);
  } catch (error) {
    detach();
    await close(server);
    throw error;
  }
  await stopped;
}
