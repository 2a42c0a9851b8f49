import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { product, withCategory } from '../../helpers/catalog.js';

// Real 1×1 images.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const MB = 1024 * 1024;

let emu: TestEmulator;
let server: Server;
let base: string;
let releaseHeld: () => void = () => undefined;
// Resolves when the next /held.png request reaches the server: the download runs in the background,
// after the PUT's answer, so the test waits for it to arrive before releasing it.
let arrived: () => void = () => undefined;
const nextHeld = () => new Promise<void>((r) => (arrived = r));
let heldArrived = nextHeld();
let hugeFinished = false;

function serveLarge(res: import('node:http').ServerResponse, total: number, onFinish?: () => void): void {
  // Chunked (no Content-Length): only counting the bytes read can stop it.
  res.writeHead(200, { 'content-type': 'image/png' });
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 7);
  PNG.copy(chunk);
  const pump = () => {
    while (sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end(() => onFinish?.());
  };
  pump();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    const send = (type: string, body: Buffer | string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path.startsWith('/ok.png')) return send('image/png', PNG);
    if (path.startsWith('/ok.jpg')) return send('image/jpeg', JPEG);
    if (path.startsWith('/ok.webp')) return send('image/webp', WEBP);
    if (path.startsWith('/fake.png')) return send('image/png', 'esto es texto, no una imagen');
    if (path.startsWith('/big.png')) return serveLarge(res, 6 * MB);
    if (path.startsWith('/huge.png')) return serveLarge(res, 200 * MB, () => (hugeFinished = true));
    if (path.startsWith('/held.png')) {
      const held = new Promise<void>((r) => (releaseHeld = r)).then(() => send('image/png', PNG));
      arrived();
      return void held;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'CAT-1');
});
afterAll(async () => {
  await emu.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const put = (code: string, extra: Record<string, unknown> = {}) => emu.api('PUT', `/catalog/products/${code}`, { body: product(extra) });
const drain = () => emu.control('POST', '/images/drain');
const get = async (code: string) => (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.external_id === code);

describe('image_url', () => {
  it('is pending while it downloads and ready once the PNG is accepted', async () => {
    const url = `${base}/held.png`;
    expect((await put('IMG-HELD', { image_url: url })).status).toBe(201);
    expect((await get('IMG-HELD')).image).toEqual({ status: 'pending', source: null, requested_url: url, error: null });
    await heldArrived;
    heldArrived = nextHeld();
    releaseHeld();
    const drained = await drain();
    expect(drained.status).toBe(200);
    expect(await get('IMG-HELD')).toMatchObject({ image_url: url, image: { status: 'ready', source: 'integration', error: null } });
  });

  it.each([['ok.jpg'], ['ok.webp'], ['ok.png']])('accepts the bytes of %s', async (file) => {
    const code = `IMG-${file.replace('.', '-')}`;
    await put(code, { image_url: `${base}/${file}` });
    await drain();
    expect((await get(code)).image.status).toBe('ready');
  });

  it.each([
    ['a text file named .png', 'fake.png', /JPEG, PNG ni WebP/],
    ['a 6 MB file', 'big.png', /5 MB/],
    ['a 404 answer', 'missing.png', /404/],
  ])('rejects %s without failing the product, keeping the old photo', async (_label, file, error) => {
    const code = `IMG-BAD-${file}`.replace(/\./g, '-');
    await put(code, { image_url: `${base}/ok.png?${code}` });
    await drain();
    const res = await put(code, { image_url: `${base}/${file}` });
    expect(res.status).toBe(200);
    expect(res.body.data.result).toBe('updated');
    await drain();
    const after = await get(code);
    expect(after.image_url).toBe(`${base}/ok.png?${code}`);
    expect(after.image).toMatchObject({ status: 'rejected', requested_url: `${base}/${file}`, error: expect.stringMatching(error) });
  });

  it('stops reading a body past 5 MB instead of downloading all of it', async () => {
    await put('IMG-HUGE', { image_url: `${base}/huge.png` });
    await drain();
    expect((await get('IMG-HUGE')).image.status).toBe('rejected');
    expect(hugeFinished).toBe(false);
  });

  it('never deletes the photo when image_url is omitted, and answers unchanged for the same address again', async () => {
    const url = `${base}/ok.png?keep`;
    await put('IMG-KEEP', { image_url: url });
    await drain();
    expect((await put('IMG-KEEP')).body.data.result).toBe('unchanged');
    expect((await get('IMG-KEEP')).image_url).toBe(url);
    expect((await put('IMG-KEEP', { image_url: url })).body.data.result).toBe('unchanged');
  });

  it('with image_mode if_empty uses the image only when the product has no photo', async () => {
    await put('IMG-EMPTY', { image_url: `${base}/ok.png?first`, image_mode: 'if_empty' });
    await drain();
    expect((await get('IMG-EMPTY')).image_url).toBe(`${base}/ok.png?first`);
    const res = await put('IMG-EMPTY', { image_url: `${base}/ok.jpg?second`, image_mode: 'if_empty' });
    expect(res.body.data.result).toBe('unchanged');
    await drain();
    expect(await get('IMG-EMPTY')).toMatchObject({ image_url: `${base}/ok.png?first`, image: { status: 'ready', requested_url: `${base}/ok.png?first` } });
    await put('IMG-EMPTY', { image_url: `${base}/ok.jpg?third` });
    await drain();
    expect((await get('IMG-EMPTY')).image_url).toBe(`${base}/ok.jpg?third`);
  });

  it('keeps a photo set in the panel over image_url until the panel clears it', async () => {
    const made = await put('IMG-PANEL', { image_url: `${base}/ok.png?erp-1` });
    await drain();
    const panelUrl = 'https://panel.example/foto.jpg';
    await emu.control('PATCH', `/products/${made.body.data.id}`, { photo_url: panelUrl });
    await put('IMG-PANEL', { image_url: `${base}/ok.webp?erp-2` });
    await drain();
    expect(await get('IMG-PANEL')).toMatchObject({ image_url: panelUrl, image: { status: 'ready', source: 'panel' } });
    const cleared = await emu.control('PATCH', `/products/${made.body.data.id}`, { photo_url: null });
    expect(cleared.body.data.image).toMatchObject({ status: 'pending', source: null });
    await drain();
    expect(await get('IMG-PANEL')).toMatchObject({ image_url: `${base}/ok.webp?erp-2`, image: { status: 'ready', source: 'integration' } });
  });

  it('answers 422 on image_url for an address that is not http(s)', async () => {
    const res = await put('IMG-FTP', { image_url: 'ftp://example.com/a.png' });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('image_url');
  });
});

describe('POST /_emulator/images/drain', () => {
  it('answers at once with nothing pending', async () => {
    expect((await drain()).body.data).toEqual({ drained: 0 });
  });

  it('is released by a reset, which cancels the downloads in flight', async () => {
    await put('IMG-RESET', { image_url: `${base}/held.png?reset` });
    const drained = drain();
    await emu.control('POST', '/reset');
    expect((await drained).status).toBe(200);
    expect((await emu.api('GET', '/catalog/products')).body.data).toEqual([]);
    releaseHeld();
  });
});
