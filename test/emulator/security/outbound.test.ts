import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { product, withCategory } from '../../helpers/catalog.js';
import { startReceiver } from '../../helpers/receiver.js';
import { refusedPort } from '../../helpers/ports.js';
import { OutboundGuard } from '../../../emulator/net/outbound.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let emu: TestEmulator;
let port: number;
let images: Server;
let imageBase: string;
let closedPort: number;

beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  port = Number(new URL(emu.url).port);
  images = createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) return void res.writeHead(302, { location: to }).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  // A port where nothing listens, nor can while the test runs.
  closedPort = await refusedPort();
  await withCategory(emu, 'CAT-1');
});
afterAll(async () => {
  await emu.close();
  images.closeAllConnections();
  await new Promise((r) => images.close(r));
});

/** Moves the clock so that a reset (which puts it back) would show. */
async function markState(): Promise<number> {
  await emu.control('POST', '/clock/advance', { seconds: 3600 });
  return (await emu.control('GET', '/clock')).body.data.offset_seconds;
}

describe('webhook deliveries never reach the emulator itself', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]'])('refuses PUT /webhook to http://%s:<emulator port>/_emulator/reset with 422', async (host) => {
    const res = await emu.api('PUT', '/webhook', { body: { url: `http://${host}:${port}/_emulator/reset`, events: ['*'] } });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'self_target' })]);
  });

  it.each(['https://192.0.2.10/hook', 'https://198.18.0.1/hook', 'https://[2001:db8::1]/hook', 'https://[64:ff9b::a00:1]/hook', 'https://[::ffff:a9fe:a9fe]/hook'])(
    'refuses PUT /webhook to the written-out address %s with 422 not_public',
    async (url) => {
      const res = await emu.api('PUT', '/webhook', { body: { url, events: ['*'] } });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'not_public' })]);
    },
  );

  it('refuses the panel’s webhook setting to the emulator itself too', async () => {
    const res = await emu.control('PUT', `/integrations/${emu.test.integration_id}/webhook`, { url: `http://localhost:${port}/_emulator/reset`, events: ['*'] });
    expect(res.status).toBe(422);
  });

  it.each(['127.0.0.1', 'localhost'])('at connection time, a stored webhook to %s at the emulator’s port fails and resets nothing', async (host) => {
    const before = await markState();
    const env = emu.running.emulator.env('test');
    const stored = (await emu.api('PUT', '/webhook', { body: { url: `http://127.0.0.1:${closedPort}/hook`, events: ['*'] } })).status;
    expect([200, 201]).toContain(stored);
    // Past the save-time check, as a webhook written by an older version would be.
    const webhook = (await env.store.webhooks.get(emu.test.integration_id))!;
    await env.store.webhooks.save({ ...webhook, url: `http://${host}:${port}/_emulator/reset` });
    expect((await emu.api('POST', '/webhook/test')).status).toBe(202);
    await emu.control('POST', '/webhooks/drain');
    expect((await emu.control('GET', '/clock')).body.data.offset_seconds).toBe(before);
    const [delivery] = (await emu.api('GET', '/webhook/deliveries?limit=1')).body.data;
    expect(delivery.attempts.at(-1)).toMatchObject({ succeeded: false, error: 'connection_refused', response_status: null });
  });
});

// Regression: a sandbox credential of one emulator reset another one on the same machine (another
// port of loopback, which local receivers need) by aiming its webhook at that one's control API.
describe('webhook deliveries never change another emulator through its control API', () => {
  it('a delivery to another emulator’s /_emulator/reset answers 403 and resets nothing there', async () => {
    const other = await startTestEmulator();
    try {
      await other.control('POST', '/clock/advance', { seconds: 3600 });
      expect((await emu.api('PUT', '/webhook', { body: { url: `${other.url}/_emulator/reset`, events: ['*'] } })).status).toBeLessThan(300);
      expect((await emu.api('POST', '/webhook/test')).status).toBe(202);
      await emu.control('POST', '/webhooks/drain');
      expect((await other.control('GET', '/clock')).body.data.offset_seconds).toBe(3600);
      const [delivery] = (await emu.api('GET', '/webhook/deliveries?limit=1')).body.data;
      expect(delivery.attempts.at(-1)).toMatchObject({ succeeded: false, response_status: 403 });
    } finally {
      await other.close();
    }
  });
});

describe('names are resolved and every address checked', () => {
  it('delivers to a local receiver reached by the name localhost', async () => {
    const rx = await startReceiver();
    try {
      const url = rx.url.replace('127.0.0.1', 'localhost');
      expect((await emu.api('PUT', '/webhook', { body: { url, events: ['*'] } })).status).toBeLessThan(300);
      await emu.api('POST', '/webhook/test');
      await emu.control('POST', '/webhooks/drain');
      expect(rx.received.length).toBeGreaterThanOrEqual(1);
    } finally {
      await rx.close();
    }
  });

  it('refuses in lookup a name that resolves to the emulator’s own port, and passes it for another port', async () => {
    const guard = new OutboundGuard();
    guard.listening('127.0.0.1', 4010);
    const resolve = (port: number, all: boolean) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        guard.lookupFor(port)('localhost', { all } as never, (error, address) => done({ error, address })),
      );
    expect((await resolve(4010, true)).error?.code).toBe('ERR_OUTBOUND_REFUSED');
    expect((await resolve(4010, false)).error?.code).toBe('ERR_OUTBOUND_REFUSED');
    const other = await resolve(4011, true);
    expect(other.error).toBeNull();
    expect(Array.isArray(other.address)).toBe(true);
    const single = await resolve(4011, false);
    expect(typeof single.address).toBe('string');
  });
});

describe('image downloads are checked on every hop, on the resolved address', () => {
  const put = (code: string, image_url: string) => emu.api('PUT', `/catalog/products/${code}`, { body: product({ image_url }) });
  const image = async (code: string) => {
    await emu.control('POST', '/images/drain');
    return (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.external_id === code).image;
  };

  it('downloads from a loopback image server, by address and by name', async () => {
    await put('IMG-OK', `${imageBase}/ok.png`);
    expect((await image('IMG-OK')).status).toBe('ready');
    await put('IMG-OK-NAME', `${imageBase.replace('127.0.0.1', 'localhost')}/ok.png`);
    expect((await image('IMG-OK-NAME')).status).toBe('ready');
  });

  it.each([
    ['a private address', 'http://10.0.0.1/x.png'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['an IPv4-mapped private address', 'http://[::ffff:192.168.0.1]/x.png'],
    ['a NAT64 private address', 'http://[64:ff9b::a00:1]/x.png'],
    ['a documentation address', 'http://192.0.2.1/x.png'],
    ['the emulator itself by address', `http://127.0.0.1:PORT/sandbox/v1/me`],
    ['the emulator itself by name', `http://localhost:PORT/sandbox/v1/me`],
  ])('refuses a redirect to %s, with the message of a closed port', async (_label, target) => {
    const code = `IMG-R-${_label.replace(/\W+/g, '-')}`;
    await put(code, `${imageBase}/r.png?to=${encodeURIComponent(target.replace('PORT', String(port)))}`);
    const refused = await image(code);
    await put(`${code}-closed`, `http://127.0.0.1:${closedPort}/x.png`);
    const closed = await image(`${code}-closed`);
    expect(refused.status).toBe('rejected');
    expect(closed.status).toBe('rejected');
    expect(refused.error).toBe(closed.error);
  });
});
