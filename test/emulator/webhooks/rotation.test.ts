import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';
import { parseSignatureHeader, verify } from '../../../src/webhooks/index.js';

let emu: TestEmulator;
let rx: Receiver;
let first: string;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig({}, ['webhook.test']);
  ({ emu, rx, secret: first } = rig);
});
afterAll(() => rig.close());

async function deliverOne() {
  await emu.api('POST', '/webhook/test');
  await emu.control('POST', '/webhooks/drain');
  const got = rx.received.at(-1)!;
  return { got, signature: got.headers['x-service-signature'] as string, timestamp: got.headers['x-service-timestamp'] as string };
}

describe('secret rotation', () => {
  it('signs with the new and the previous secret for 24 h of the clock, then with the new one only', async () => {
    const second = (await emu.api('POST', '/webhook/rotate-secret')).body.data.signing_secret;
    expect(second).not.toBe(first);

    const during = await deliverOne();
    expect(during.signature).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const check = (secrets: string) => verify({ signature: during.signature, timestamp: during.timestamp, rawBody: during.got.body, secrets }).ok;
    expect(check(second)).toBe(true);
    expect(check(first)).toBe(true);
    expect(check('whsec_other')).toBe(false);

    await emu.control('POST', '/clock/advance', { seconds: 24 * 3600 - 1 });
    expect(parseSignatureHeader((await deliverOne()).signature)).toHaveLength(2);

    await emu.control('POST', '/clock/advance', { seconds: 1 });
    const after = await deliverOne();
    expect(parseSignatureHeader(after.signature)).toHaveLength(1);
    expect(verify({ signature: after.signature, timestamp: after.timestamp, rawBody: after.got.body, secrets: first }).ok).toBe(false);
    expect(verify({ signature: after.signature, timestamp: after.timestamp, rawBody: after.got.body, secrets: second }).ok).toBe(true);
  });
});
