import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { RETRY_DELAYS_MS } from '../../../emulator/webhooks/retry-schedule.js';

let dataDir: string;
let rx: Receiver;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mk-webhook-recovery-'));
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startTestEmulator({ memory: false, data: dataDir });
const drain = async (emu: TestEmulator) => (await emu.control('POST', '/webhooks/drain')).body.data;
const deliveries = async (emu: TestEmulator) => (await emu.api('GET', '/webhook/deliveries?limit=200')).body.data as any[];

describe('restart after a crash during a manual retry of a finished delivery', () => {
  it('restores failed and succeeded deliveries to their final state instead of scheduling a tenth attempt', async () => {
    const a = await start();
    await a.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
    rx.behave = () => ({ status: 200 });
    await a.api('POST', '/webhook/test');
    await drain(a);
    rx.behave = () => ({ status: 500 });
    await a.api('POST', '/webhook/test');
    await drain(a);
    for (const ms of RETRY_DELAYS_MS) {
      await a.control('POST', '/clock/advance', { seconds: ms / 1000 });
      await drain(a);
    }
    const [failed, succeeded] = await deliveries(a);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 9, next_attempt_at: null });
    expect(succeeded).toMatchObject({ status: 'succeeded', attempt_count: 1, next_attempt_at: null });

    // What POST /webhook/deliveries/{id}/retry writes before sending; the process dies before the answer.
    const env = a.running.emulator.env('test');
    const now = env.clock.now();
    const lease = { owner: 'a process that dies', until: Date.now() + 60_000 };
    expect(await env.store.webhooks.claim(failed.id, 'failed', now, lease)).toMatchObject({ id: failed.id });
    expect(await env.store.webhooks.claim(succeeded.id, 'succeeded', now, lease)).toMatchObject({ id: succeeded.id });
    await a.close();

    rx.received.length = 0;
    rx.behave = () => ({ status: 200 });
    const b = await start();
    try {
      expect(await drain(b)).toEqual({ attempted: 0, succeeded: 0, failed: 0 });
      await b.control('POST', '/clock/advance', { seconds: 86_400 });
      expect(await drain(b)).toEqual({ attempted: 0, succeeded: 0, failed: 0 });
      expect(rx.received).toHaveLength(0);
      const after = await deliveries(b);
      expect(after.find((d) => d.id === failed.id)).toMatchObject({ status: 'failed', attempt_count: 9, next_attempt_at: null });
      expect(after.find((d) => d.id === succeeded.id)).toMatchObject({ status: 'succeeded', attempt_count: 1, next_attempt_at: null });
      // The delivery can still be retried by hand after the restart.
      const retried = await b.api('POST', `/webhook/deliveries/${failed.id}/retry`);
      expect(retried.body.data).toMatchObject({ status: 'succeeded', attempt_count: 9 });
    } finally {
      await b.close();
    }
  });
});
