import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { seedMenu } from './orders.js';

/** Debian's Chromium, headless, as the team's browser tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A seeded emulator and the panel open in a Chromium page, live, as the panel tests use them. */
export interface PanelRig {
  emu: TestEmulator;
  browser: Browser;
  page: Page;
  /** Opens (or reloads) the panel and waits until it is live and the board is drawn. */
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function startPanelRig(viewport: { width: number; height: number }): Promise<PanelRig> {
  const emu = await startTestEmulator();
  await seedMenu(emu);
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  // A step waits for what is sure to come (an element, a navigation); its limit only bounds a hang,
  // and stays below the test timeout, so that a stuck step names itself instead of timing the whole
  // test out.
  page.setDefaultTimeout(30_000);
  const open = async () => {
    await page.goto(`${emu.url}/_emulator/panel`);
    await page.locator('#live.on').waitFor();
    await page.locator('[data-column="pending"]').waitFor();
  };
  await open();
  return { emu, browser, page, open, close: async () => { await browser.close(); await emu.close(); } };
}
