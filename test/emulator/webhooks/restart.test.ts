import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';

let dir: string;
let rx: Receiver;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mk-webhooks-'));
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deliveries survive a restart', () => {
  it('resumes a scheduled retry and resends a delivery cut off mid-send, losing no event', async () => {
    const a = await startTestEmulator({ memory: false, data: dir });
    await a.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
    // First event: its attempt fails and a retry is scheduled 1 min later.
    rx.behave = () => ({ status: 500 });
    await a.api('POST', '/webhook/test');
    await a.control('POST', '/webhooks/drain');
    // Second event: the receiver never answers; the emulator stops while the request is open,
    // which leaves the row `delivering` exactly as a SIGKILL would.
    rx.behave = () => 'hang';
    await a.api('POST', '/webhook/test');
    await rx.waitFor(2);
    const before = (await a.api('GET', '/webhook/deliveries')).body.data;
    expect(before.map((d: any) => d.status).sort()).toEqual(['delivering', 'pending']);
    await a.close();

    rx.behave = () => ({ status: 200 });
    const b = await startTestEmulator({ memory: false, data: dir });
    try {
      // The interrupted one is due at once; the scheduled retry keeps its due time.
      // (The restarted dispatcher may resend the interrupted one even before this drain.)
      await b.control('POST', '/webhooks/drain');
      expect((await b.api('GET', '/webhook/deliveries?status=succeeded')).body.data).toHaveLength(1);
      await b.control('POST', '/clock/advance', { seconds: 60 });
      await b.control('POST', '/webhooks/drain');
      const after = (await b.api('GET', '/webhook/deliveries')).body.data;
      expect(after.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded']);
      const delivered = new Set(rx.received.slice(2).map((r) => r.headers['x-service-event-id']));
      expect(delivered).toEqual(new Set(before.map((d: any) => d.event_id)));
    } finally {
      await b.close();
    }
  });
});
