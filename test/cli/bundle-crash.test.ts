import { cpSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { request } from '../helpers/emulator.js';
import { buildEmulator } from '../../emulator/index.js';
import { startEmulator } from '../../emulator/server.js';
import type { ReadyInfo } from '../../emulator/server.js';

// issue 15, item 2: an interrupted `emulator start --from FILE --data DIR` left live restored and
// test reset (5 of 25 SIGKILLs), and the next start served the mix with a normal ready line. Here a
// real restore is killed at several moments; after each, a plain start of the folder must serve
// either its previous state or the bundle's, in both environments, never a mix.

const root = mkdtempSync(join(tmpdir(), 'mk-restore-kill-'));
const bundleFile = join(root, 'state.json.gz');
const oldFolder = join(root, 'old');
const children: CliProcess[] = [];
let copies = 0;

afterAll(() => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };

/** Both environments' stores and order counts, read with the ready line's demo credentials. */
async function signature(ready: ReadyInfo): Promise<string> {
  const state = (await request(`${ready.admin_url}/state`, 'GET')).body.data;
  const parts: string[] = [];
  for (const env of state.environments) {
    const seed = ready.stores.find((s) => s.environment === env.name)!;
    const base = env.name === 'test' ? ready.sandbox_base_url : ready.live_base_url;
    const orders = await request(`${base}/orders?limit=200`, 'GET', { credential: seed.credential });
    expect(orders.status, `${env.name}: the ready line's credential works`).toBe(200);
    parts.push(`${env.name}: ${env.stores.length} store(s) ${env.stores.map((s: any) => s.id).join(',')}, ${orders.body.data.length} order(s)`);
  }
  return parts.join('; ');
}

function start(args: string[], port = 0): CliProcess {
  const cli = runCli(['emulator', 'start', '--json', '--port', String(port), '--limits', 'off', ...args]);
  children.push(cli);
  return cli;
}


/** Resolves once something accepts connections on the port (the kernel accepts while a start-up still works). */
async function listening(port: number, gone: Promise<unknown>): Promise<boolean> {
  let over = false;
  void gone.then(() => (over = true));
  while (!over) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return true;
    await new Promise((r) => setTimeout(r, 2));
  }
  return false;
}

/**
 * A plain start of the folder (in this process: the start `emulator start` makes, without the cost of
 * a process of its own), its signature, then stopped; `stderr` holds the notes the CLI prints.
 */
async function served(data: string): Promise<{ signature: string; stderr: string }> {
  const running = await startEmulator({ port: 0, data, limits: false });
  try {
    return { signature: await signature(running), stderr: running.notices.join('\n') };
  } finally {
    await running.close();
  }
}

function copyOfOld(): string {
  const data = join(root, `copy-${++copies}`);
  cpSync(oldFolder, data, { recursive: true });
  return data;
}

let oldSignature: string;
let newSignature: string;
let readyAfterMs: number;
let stagingAfterMs: number | undefined;
let listenAfterMs = 0;

beforeAll(async () => {
  await ensureBuilt();
  // The bundle: many orders in the sandbox, a few live, so that the restore takes a while (2,000: some
  // 0.4 to 0.8 s from the staging folder to the ready line, so the moments below stay tens of
  // milliseconds or more apart; 6,000 took three times the CPU to make and to restore fourteen times,
  // issue 27). Made through the app's inject (the same routes without a socket: about half the CPU
  // of as many HTTP calls); what is under test is the restore of the bundle, below.
  const { app: source } = await buildEmulator({ memory: true, clock: 'manual', limits: false });
  try {
    const state = (await source.inject({ method: 'GET', url: '/_emulator/state' })).json<any>().data;
    for (const env of ['test', 'live'] as const) {
      const storeId: string = state.environments.find((e: any) => e.name === env).stores[0].id;
      expect((await source.inject({ method: 'POST', url: `/_emulator/stores/${storeId}/products`, payload: { name: 'Chipa', price: '5000' } })).statusCode).toBe(201);
      const count = env === 'test' ? 2000 : 7;
      for (let i = 0; i < count; i += 20) {
        const batch = Array.from({ length: Math.min(20, count - i) }, () => source.inject({ method: 'POST', url: '/_emulator/orders', payload: { store_id: storeId } }));
        for (const res of await Promise.all(batch)) expect(res.statusCode, res.body).toBe(201);
      }
    }
    const exported = await source.inject({ method: 'GET', url: '/_emulator/export' });
    expect(exported.statusCode).toBe(200);
    writeFileSync(bundleFile, exported.rawPayload);
  } finally {
    await source.close();
  }
  // The folder being restored over: its own demo stores, one sandbox order.
  const old = await startEmulator({ port: 0, data: oldFolder, clock: 'manual' });
  const store = old.stores.find((s) => s.environment === 'test')!;
  await request(`${old.admin_url}/stores/${store.store_id}/products`, 'POST', { body: { name: 'Sopa', price: '9000' }, headers: json });
  await request(`${old.admin_url}/orders`, 'POST', { body: { store_id: store.store_id }, headers: json });
  await old.close();
  oldSignature = (await served(copyOfOld())).signature;
  // A whole restore, to know the bundle's state and the moments of a restore: when its staging
  // folder appears, and when the ready line comes.
  const data = copyOfOld();
  const started = Date.now();
  const watcher = watch(data, (_event, file) => {
    if (file === '.restore-staging') stagingAfterMs ??= Date.now() - started;
  });
  const port = await freePort();
  const cli = start(['--data', data, '--from', bundleFile], port);
  void listening(port, cli.exited).then(() => (listenAfterMs = Date.now() - started));
  await cli.firstLine;
  readyAfterMs = Date.now() - started;
  watcher.close();
  cli.child.kill('SIGTERM');
  await cli.exited;
  newSignature = (await served(data)).signature;
  expect(newSignature).not.toBe(oldSignature);
}, 300_000);

/** Starts a restore on a fresh copy, kills it with SIGKILL when `when` says, then starts the folder plainly. */
async function killedRestore(when: (cli: CliProcess, data: string, kill: () => void, port: number) => void) {
  const data = copyOfOld();
  const port = await freePort();
  const cli = start(['--data', data, '--from', bundleFile], port);
  const kill = () => cli.child.kill('SIGKILL');
  when(cli, data, kill, port);
  void cli.firstLine.then(kill, kill); // a moment that never came: killed once ready
  await cli.exited;
  return served(data);
}

/** Kills `delayMs` after `name` appears in the folder (inotify: within a millisecond or so). */
const afterAppearance = (name: string, delayMs = () => 0) => (cli: CliProcess, data: string, kill: () => void) => {
  const watcher = watch(data, (_event, file) => {
    if (file === name) setTimeout(kill, delayMs());
  });
  void cli.exited.then(() => watcher.close());
};
/** The restore's own time, from its staging folder to the ready line, as the first restore took. */
const restoreMs = () => readyAfterMs - (stagingAfterMs ?? readyAfterMs);

describe('SIGKILL during emulator start --from --data', () => {
  type When = (cli: CliProcess, data: string, kill: () => void, port: number) => void;
  /** Kills at `f` of the way from the moment the port accepts to the ready line (a restore made after listening). */
  const afterListening = (f: number): When => (cli, _d, kill, port) =>
    void listening(port, cli.exited).then(() => setTimeout(kill, f * Math.max(0, readyAfterMs - listenAfterMs)));
  const points: [string, When][] = [
    ['as the staging folder appears', afterAppearance('.restore-staging')],
    ...[0.25, 0.5, 0.75].map((f): [string, When] => [`${f * 100}% into the restore`, afterAppearance('.restore-staging', () => f * restoreMs())]),
    ['as the restore is committed', afterAppearance('.restore-swap')],
    // Moments of the clock, whatever the implementation: the restore is the end of the start-up.
    ...[0.8, 0.9, 0.95, 0.99].map((f): [string, When] => [`at ${f * 100}% of the time to the ready line`, (_c, _d, kill) => void setTimeout(kill, f * readyAfterMs)]),
    ...[0, 0.25, 0.5, 0.75].map((f): [string, When] => [`${f * 100}% of the way from listening to ready`, afterListening(f)]),
    ['right after the ready line', () => undefined],
  ];

  it.each(points)('leaves the previous state or the bundle\'s, never a mix, when killed %s', async (_when, when) => {
    const after = await killedRestore(when);
    expect([oldSignature, newSignature]).toContain(after.signature);
    // Each outcome says what happened to the interrupted restore, or nothing when there was none.
    if (/discarded the restore/.test(after.stderr)) expect(after.signature).toBe(oldSignature);
    if (/finished the restore/.test(after.stderr)) expect(after.signature).toBe(newSignature);
  }, 300_000);
});
