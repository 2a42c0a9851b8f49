import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { openChromium, type TestBrowser } from '../helpers/panel.js';

// homologate's reference run makes a store of its own and suspends it when it ends: the panel's
// store selector leaves such stores out, so they do not pile up run after run.

let emu: TestEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  emu = await startTestEmulator();
  browser = await openChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

async function store(slug: string, name: string, suspended: boolean): Promise<string> {
  const made = await emu.control('POST', '/stores', { environment: 'test', name, slug });
  expect(made.status).toBe(201);
  if (suspended) expect((await emu.control('PATCH', `/stores/${made.body.data.store.id}`, { suspended: true })).status).toBe(200);
  return made.body.data.store.id;
}

describe('panel: the store selector', () => {
  it('leaves out the suspended stores of finished reference runs, and keeps every other store, suspended or not', async () => {
    const finished = await store('merchant-kit-homologation-a1b2c3', 'merchant-kit homologation a1b2c3', true);
    const running = await store('merchant-kit-homologation-d4e5f6', 'merchant-kit homologation d4e5f6', false);
    const yours = await store('my-other-shop', 'My other shop', true);
    const page = await browser.newPage();
    await page.goto(`${emu.url}/_emulator/panel`);
    await page.locator('#live.on').waitFor();
    const options = await page.locator('#store-select option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toContain(emu.test.store_id);
    expect(options).toContain(running);
    expect(options).toContain(yours);
    expect(options).not.toContain(finished);
    // Nor is it the store the panel opens by default, whatever the stores' order.
    expect(await page.locator('#store-select').inputValue()).not.toBe(finished);
    await page.close();
  });
});
