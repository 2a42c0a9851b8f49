import type { EmulatorOptions } from '../../emulator/emulator.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { startReceiver, type Receiver } from './receiver.js';

export interface WebhookRig {
  emu: TestEmulator;
  rx: Receiver;
  /** The signing secret from the 201 that created the webhook. */
  secret: string;
  close(): Promise<void>;
}

/** An emulator, a local receiver and the seeded test integration's webhook pointing at it. */
export async function startWebhookRig(options: EmulatorOptions = {}, events: string[] = ['*']): Promise<WebhookRig> {
  const emu = await startTestEmulator(options);
  const rx = await startReceiver();
  const res = await emu.api('PUT', '/webhook', { body: { url: rx.url, events } });
  return {
    emu,
    rx,
    secret: res.body.data.signing_secret,
    close: async () => {
      await emu.close();
      await rx.close();
    },
  };
}
