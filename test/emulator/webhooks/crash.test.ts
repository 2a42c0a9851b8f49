import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/emulator.js';
import { ensureBuilt } from '../../helpers/cli.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import type { ReadyInfo } from '../../../emulator/server.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dataDir: string;
let rx: Receiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'mk-webhook-crash-'));
  rx = await startReceiver();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await rx.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function start(): Promise<{ child: ChildProcess; ready: ReadyInfo }> {
  const child = spawn(
    process.execPath,
    ['bin/merchant-kit.js', 'emulator', 'start', '--json', '--port', '0', '--clock', 'manual', '--data', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulator exited early (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ready: JSON.parse(line) }));
  });
}

const exited = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));

describe('webhook deliveries across a SIGKILL', () => {
  it('loses no event: a delivery cut off mid-send goes again at once, a scheduled retry keeps its time', async () => {
    const a = await start();
    const test = a.ready.stores.find((s) => s.environment === 'test')!;
    const api = (method: string, path: string, body?: unknown) =>
      request(`${a.ready.sandbox_base_url}${path}`, method, { body, credential: test.credential });
    expect((await api('PUT', '/webhook', { url: rx.url, events: ['*'] })).status).toBe(201);

    rx.behave = () => ({ status: 500 });
    await api('POST', '/webhook/test');
    await request(`${a.ready.admin_url}/webhooks/drain`, 'POST', { headers: { 'content-type': 'application/json' } });
    rx.behave = () => 'hang';
    await api('POST', '/webhook/test');
    await rx.waitFor(2);
    const before = (await api('GET', '/webhook/deliveries')).body.data;
    expect(before.map((d: any) => d.status).sort()).toEqual(['delivering', 'pending']);
    a.child.kill('SIGKILL');
    await exited(a.child);

    rx.behave = () => ({ status: 200 });
    const b = await start();
    const drain = () => request(`${b.ready.admin_url}/webhooks/drain`, 'POST', { headers: { 'content-type': 'application/json' } });
    // The restarted dispatcher may already have resent the interrupted one before this drain.
    await drain();
    await request(`${b.ready.admin_url}/clock/advance`, 'POST', { body: { seconds: 60 } });
    await drain();
    const after = (await request(`${b.ready.sandbox_base_url}/webhook/deliveries`, 'GET', { credential: test.credential })).body.data;
    expect(after.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded']);
    const okEvents = new Set(rx.received.slice(2).map((r) => r.headers['x-service-event-id']));
    expect(okEvents).toEqual(new Set(before.map((d: any) => d.event_id)));
    b.child.kill('SIGTERM');
    await exited(b.child);
  });
});
