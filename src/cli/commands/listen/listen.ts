import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { MerchantClient } from '../../../client/merchant-client.js';
import { ExitError } from '../../errors.js';
import { note } from '../../output.js';
import { emptyState, loadState, type CursorState } from '../feed/cursor-file.js';
import { abortOnSignals, isStop, Stopped } from '../feed/stop.js';
import { configureWebhook } from './configure.js';
import { keptSecret, type KeptSecret } from './kept-secret.js';
import { Dispatcher } from './dispatch.js';
import { parseForwardUrl } from './forward.js';
import { DEFAULT_RECONCILE_SECONDS, type ListenOptions } from './index.js';
import { printer, printReady, type Configured } from './output.js';
import { createReceiver } from './receiver.js';
import { reconcileLoop } from './reconcile.js';
import { findSecret, MISSING_SECRET } from './secret.js';
import { serverTimeouts } from '../../../server/timeouts.js';

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

/** Stops accepting; idle connections close now, a response being written gets half a second to finish. */
function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), 500);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** `--events` means something only with `--configure`; `--cursor-file` and `--reconcile-interval` only with `--backfill`. */
function checkBackfillFlags(options: ListenOptions, command: Command): void {
  if (options.events !== undefined && options.configure === undefined) throw new ExitError('error: --events works with --configure only (it sets the webhook\'s event types).', 2);
  if (options.backfill) return;
  const given = options.cursorFile !== undefined ? '--cursor-file' : command.getOptionValueSource('reconcileInterval') === 'cli' ? '--reconcile-interval' : null;
  if (given) throw new ExitError(`error: ${given} works with --backfill only.`, 2);
}

interface Api {
  client: MerchantClient;
  integrationId: string;
  state: CursorState;
  save: () => void;
  file: string;
  /** Where `--configure` keeps the webhook secret between runs (the profile's state folder). */
  kept: KeptSecret;
}

/** With `--configure` or `--backfill`: the client of the target in use (flags, environment or profile) and, for `--backfill`, the kept state. */
async function connect(options: ListenOptions, command: Command): Promise<Api | null> {
  if (options.configure === undefined && !options.backfill) return null;
  const { resolveContext } = await import('../../context.js');
  const ctx = await resolveContext(command);
  const client = ctx.client();
  try {
    const me = await client.me();
    const integrationId = me.integration.id;
    const { profileStateDir } = await import('../../config/paths.js');
    const kept = keptSecret(profileStateDir(ctx.profileName), ctx.baseUrl, integrationId);
    if (!options.backfill) return { client, integrationId, state: emptyState(), save: () => {}, file: '', kept };
    const file = options.cursorFile ?? join(profileStateDir(ctx.profileName), `listen-${integrationId}.json`);
    return { client, integrationId, ...loadState(file, integrationId), file, kept };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** `merchant-kit listen`: prints the URL, then one line per delivery until interrupted. */
export async function listenAction(options: ListenOptions, command: Command): Promise<void> {
  checkBackfillFlags(options, command);
  const forwardTo = options.forwardTo ? parseForwardUrl(options.forwardTo) : undefined;
  let secret = await findSecret({ env: process.env.MERCHANT_KIT_WEBHOOK_SECRET, stdin: options.secretStdin, flag: options.secret });
  // With --configure the API hands out the secret when it creates the webhook.
  if (secret === null && options.configure === undefined) throw new ExitError(MISSING_SECRET, 2);
  if (options.secret !== undefined) {
    note('Warning: --secret shows in the process list; prefer MERCHANT_KIT_WEBHOOK_SECRET or --secret-stdin.');
  }
  const api = await connect(options, command);
  try {
    await run(options, forwardTo, api, () => secret, (s) => (secret = s));
  } finally {
    await api?.client.close().catch(() => undefined);
  }
}

async function run(options: ListenOptions, forwardTo: URL | undefined, api: Api | null, secret: () => string | null, setSecret: (s: string) => void): Promise<void> {
  const controller = new AbortController();
  let fatal: unknown = null;
  const fail = (error: unknown) => {
    fatal ??= error;
    // After the current request's 500 is written (the service retries it), not before.
    setImmediate(() => {
      if (!controller.signal.aborted) controller.abort(new Stopped('fatal'));
    });
  };
  const state = api?.state ?? emptyState();
  const rawSave = api?.save ?? (() => {});
  // A state file that cannot be written stops the listener (exit 1); the delivery in hand gets 500 and is retried.
  const save = () => {
    try {
      rawSave();
    } catch (error) {
      fail(error);
      throw error;
    }
  };
  const report = printer(options.json);
  const dispatcher = new Dispatcher({
    forwardTo, secret, state, save, report, log: note,
    ownIntegrationId: api?.integrationId ?? null,
    includeOwn: Boolean(options.includeOwn),
    maxRetryDelayMs: Math.min(30, options.reconcileInterval ?? DEFAULT_RECONCILE_SECONDS) * 1000,
  });
  // The emulator's deadlines: a stalled sender is cut after 10 s (headers) or 30 s (whole request).
  const server = http.createServer(serverTimeouts(), createReceiver({ secret, path: options.path, dispatcher, report }));
  let address: AddressInfo;
  try {
    address = await listen(server, options.port, options.host);
  } catch (error) {
    throw new ExitError(`Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  const detach = abortOnSignals(controller, (name) => note(`${name}: stopping the listener…`));
  const stopped = new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
  let loop: Promise<void> = Promise.resolve();
  try {
    const url = localUrl(address, options.path);
    const configured = api && options.configure !== undefined ? await configure(api, options.configure === true ? url : options.configure, options.events, secret, setSecret) : null;
    printReady(Boolean(options.json), { url, forwardTo: forwardTo?.href ?? null, configured, cursorFile: api?.file || null });
    if (api && options.backfill) {
      loop = reconcileLoop({
        client: api.client, dispatcher, state, save, forwardTo, secret, report,
        intervalMs: options.reconcileInterval * 1000,
        signal: controller.signal,
      }).catch((error: unknown) => {
        if (!isStop(error, controller.signal)) fail(error);
      });
    }
    await stopped;
  } finally {
    detach();
    if (!controller.signal.aborted) controller.abort(new Stopped('fatal'));
    await close(server);
    await loop;
  }
  if (fatal) throw fatal;
  rawSave();
}

/** `--configure`: the webhook points at `url` (and `--events`), with a secret the listener knows (configure.ts). */
async function configure(api: Api, url: string, events: string[] | undefined, secret: () => string | null, setSecret: (s: string) => void): Promise<Configured> {
  const result = await configureWebhook(api.client, { url, events, given: secret(), kept: api.kept });
  setSecret(result.secret);
  return { url, created: result.created, events: result.events, source: result.source, newSecret: result.source === 'created' || result.source === 'rotated' ? result.secret : null };
}
