import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { seedMenu } from './orders.js';
import { patienceNow } from './wait.js';

/**
 * A test file's share of the vitest worker's Chromium: every page it opens is in a browser context
 * of its own (cookies, storage, cache, downloads), as `Browser.newPage` gives, and `close()` closes
 * every context the file opened. The browser itself stays for the worker's next file.
 */
export interface TestBrowser {
  /** A page in a new context of its own; closing the page closes its context. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Closes every context this file opened (the shared browser stays open). */
  close(): Promise<void>;
  /** The worker's browser, for the helper's own test. */
  readonly browser: Browser;
}

// One Chromium per vitest worker, shared by the files the worker runs (issue 27: a launch cost each
// browser file about 1.5 s of CPU). Kept on globalThis so that a module evaluated again still finds
// it. It ends with the worker: playwright kills it on a normal exit, and Chromium exits by itself
// when its pipe to the worker closes (a worker stopped by SIGTERM or killed). Playwright's own
// SIGINT/SIGTERM/SIGHUP handlers are left out: they would keep a stopped worker alive (vitest kills
// it half a second later) to close the browser gracefully, which nothing here needs.
const SHARED = Symbol.for('merchant-kit.test.chromium');
type Holder = { [SHARED]?: Promise<Browser> };

/** Debian's Chromium, headless, as the team's browser tests run it. */
function sharedChromium(): Promise<Browser> {
  const holder = globalThis as Holder;
  const existing = holder[SHARED];
  if (existing) return existing;
  const launched = chromium.launch({
    executablePath: '/usr/bin/chromium',
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  holder[SHARED] = launched;
  const forget = () => {
    if (holder[SHARED] === launched) delete holder[SHARED];
  };
  // A browser that failed to start or went away is launched again by the next file that asks.
  launched.then((browser) => {
    browser.on('disconnected', forget);
    // An interrupted run: vitest's main process exits at once and leaves its workers to end with
    // their current file. The browser goes as soon as the worker is cut off.
    process.once('disconnect', () => void browser.close().catch(() => undefined));
  }, forget);
  return launched;
}

/** The worker's Chromium, for one test file (see TestBrowser). */
export async function openChromium(): Promise<TestBrowser> {
  const browser = await sharedChromium();
  const contexts = new Set<BrowserContext>();
  const track = (context: BrowserContext) => {
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    return context;
  };
  return {
    browser,
    newPage: async (options) => {
      const page = await browser.newPage(options);
      track(page.context());
      return page;
    },
    newContext: async (options) => track(await browser.newContext(options)),
    close: async () => {
      await Promise.all([...contexts].map((context) => context.close()));
    },
  };
}

/** A seeded emulator and the panel open in a Chromium page, live, as the panel tests use them. */
export interface PanelRig {
  emu: TestEmulator;
  browser: TestBrowser;
  page: Page;
  /** Opens (or reloads) the panel and waits until it is live and the board is drawn. */
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function startPanelRig(viewport: { width: number; height: number }): Promise<PanelRig> {
  // The emulator and the browser at once: neither waits on the other. If one fails, the other closes.
  const [started, opened] = await Promise.allSettled([
    startTestEmulator().then(async (emu) => {
      await seedMenu(emu).catch(async (error: unknown) => {
        await emu.close();
        throw error;
      });
      return emu;
    }),
    openChromium(),
  ]);
  if (started.status === 'rejected' || opened.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.close();
    if (opened.status === 'fulfilled') await opened.value.close();
    throw started.status === 'rejected' ? started.reason : (opened as PromiseRejectedResult).reason;
  }
  const emu = started.value;
  const browser = opened.value;
  const page = await browser.newPage({ viewport });
  // A step waits for what is sure to come (an element, a navigation); its limit only bounds a hang,
  // and stays below the test timeout, so that a stuck step names itself instead of timing the whole
  // test out.
  page.setDefaultTimeout(patienceNow());
  const open = async () => {
    await page.goto(`${emu.url}/_emulator/panel`);
    await page.locator('#live.on').waitFor();
    await page.locator('[data-column="pending"]').waitFor();
  };
  await open();
  return { emu, browser, page, open, close: async () => { await browser.close(); await emu.close(); } };
}
