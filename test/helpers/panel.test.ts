import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium, type TestBrowser } from './panel.js';
import { patienceNow } from './wait.js';

// The browser files of a vitest worker share one Chromium (helpers/panel.ts): nothing one file
// leaves in it — cookies, storage of every kind, downloads — reaches the next file.

let server: Server;
let origin: string;
/** The Cookie header of every request the server got, by path. */
const cookieHeaders: Array<[string, string | undefined]> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    cookieHeaders.push([req.url ?? '', req.headers.cookie]);
    if (req.url === '/download') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="leak.txt"' });
      res.end('a file of the first test file');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'from_server=1; Path=/; Max-Age=3600' });
    res.end('<!doctype html><title>leak</title><a id="download" href="/download">download</a>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** What a page of the origin can see that an earlier page left. */
const leftovers = (page: import('playwright-core').Page) =>
  page.evaluate(async () => ({
    cookie: document.cookie,
    local: localStorage.length,
    session: sessionStorage.length,
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
  }));

describe('the worker\'s shared Chromium', () => {
  let first: TestBrowser | undefined;
  let second: TestBrowser | undefined;
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('gives a later file the same browser with none of an earlier file\'s cookies, storage or downloads', async () => {
    first = await openChromium();
    const page = await first.newPage();
    page.setDefaultTimeout(patienceNow());
    await page.goto(origin);
    await page.evaluate(async () => {
      document.cookie = 'from_script=1; path=/; max-age=3600';
      localStorage.setItem('left', 'by the first file');
      sessionStorage.setItem('left', 'by the first file');
      await new Promise((resolve, reject) => {
        const open = indexedDB.open('left-by-first-file');
        open.onsuccess = () => { open.result.close(); resolve(undefined); };
        open.onerror = () => reject(open.error);
      });
      await caches.open('left-by-first-file');
    });
    // What the first file left is there for its own pages (so the checks below can see it).
    expect(await leftovers(page)).toEqual({ cookie: expect.stringContaining('from_script=1'), local: 1, session: 1, databases: ['left-by-first-file'], caches: ['left-by-first-file'] });
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download').click()]);
    const downloaded = await download.path();
    expect(existsSync(downloaded)).toBe(true);
    // A context opened without a page, as page.test.ts opens one.
    const other = await first.newContext();
    await other.addCookies([{ name: 'from_context', value: '1', url: origin }]);
    await first.close();
    expect(first.browser.contexts()).toEqual([]);
    expect(existsSync(downloaded)).toBe(false);

    second = await openChromium();
    expect(second.browser).toBe(first.browser);
    expect(second.browser.isConnected()).toBe(true);
    const fresh = await second.newPage();
    fresh.setDefaultTimeout(patienceNow());
    cookieHeaders.length = 0;
    await fresh.goto(origin);
    expect(cookieHeaders.filter(([path]) => path === '/')).toEqual([['/', undefined]]);
    expect(await fresh.context().cookies()).toEqual([expect.objectContaining({ name: 'from_server' })]);
    expect(await leftovers(fresh)).toEqual({ cookie: 'from_server=1', local: 0, session: 0, databases: [], caches: [] });
    await second.close();
    expect(second.browser.contexts()).toEqual([]);
  });
});
