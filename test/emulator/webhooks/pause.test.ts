import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';

let emu: TestEmulator;
let rx: Receiver;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig();
  ({ emu, rx } = rig);
  rx.behave = () => ({ status: 500 });
});
afterAll(() => rig.close());

const drain = async () => (await emu.control('POST', '/webhooks/drain')).body.data;
const advance = (seconds: number) => emu.control('POST', '/clock/advance', { seconds });
const webhook = async () => (await emu.api('GET', '/webhook')).body.data;
const panelWebhook = async () =>
  (await emu.control('GET', '/state')).body.data.environments
    .flatMap((e: any) => e.stores)
    .flatMap((s: any) => s.integrations)
    .find((i: any) => i.id === emu.test.integration_id).webhook;

describe('pause after 72 h of continuous failures', () => {
  it('pauses at the first failed attempt 72 h into an unbroken run of failures, holds deliveries, and resumes on reactivation', async () => {
    await emu.api('POST', '/webhook/test');
    await drain();
    for (let hour = 1; hour <= 71; hour++) {
      await advance(3600);
      await drain();
      await emu.api('POST', '/webhook/test');
      await drain();
    }
    expect(await webhook()).toMatchObject({ paused: false, paused_reason: null });
    await advance(3600);
    // The retries due at 72 h fail: the run began at 0 h.
    expect((await drain()).failed).toBeGreaterThan(0);
    expect(await webhook()).toMatchObject({ active: true, paused: true, paused_reason: 'continuous_failures' });
    expect(await panelWebhook()).toMatchObject({ paused: true, paused_reason: 'continuous_failures', notice: expect.stringContaining('72 h') });

    // While paused: no new delivery, and pending ones are held.
    const received = rx.received.length;
    expect((await emu.api('POST', '/webhook/test')).body.data).toEqual({ queued: false });
    await advance(48 * 3600);
    expect(await drain()).toEqual({ attempted: 0, succeeded: 0, failed: 0 });
    expect(rx.received.length).toBe(received);
    const held = (await emu.api('GET', '/webhook/deliveries?status=pending&limit=200')).body.data.length;
    expect(held).toBeGreaterThan(0);

    // The merchant reactivates: held deliveries due now go out.
    rx.behave = () => ({ status: 200 });
    const put = await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'], active: true } });
    expect(put.body.data).toMatchObject({ paused: false, paused_reason: null });
    const after = await drain();
    expect(after).toEqual({ attempted: held, succeeded: held, failed: 0 });
    expect((await emu.api('GET', '/webhook/deliveries?status=pending')).body.data).toEqual([]);
  });

  it('reactivates from the panel with PUT /_emulator/integrations/{id}/webhook {active: true}', async () => {
    const { webhooks } = emu.running.emulator.env('test').store;
    const w = (await webhooks.get(emu.test.integration_id))!;
    await webhooks.save({ ...w, paused: true, pausedReason: 'continuous_failures', failingSince: 1 });
    expect((await webhook()).paused).toBe(true);
    const res = await emu.control('PUT', `/integrations/${emu.test.integration_id}/webhook`, { active: true });
    expect(res.body.data).toMatchObject({ active: true, paused: false, paused_reason: null });
    expect((await webhooks.get(emu.test.integration_id))!.failingSince).toBeNull();
  });

  it('a success ends the run of failures', async () => {
    rx.behave = (_r, n) => (n % 2 === 0 ? { status: 500 } : { status: 200 });
    rx.received.length = 0;
    for (let hour = 0; hour < 80; hour += 8) {
      await emu.api('POST', '/webhook/test');
      await drain();
      await advance(8 * 3600);
      await drain();
    }
    expect((await webhook()).paused).toBe(false);
  });
});
