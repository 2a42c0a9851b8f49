import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { product, withCategory } from '../../helpers/catalog.js';

// The image fetcher never calls the emulator's own control API (/_emulator), directly or through a redirect.

let emu: TestEmulator;
let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/to-control') return void res.writeHead(302, { location: `${emu.running.admin_url}/stores` }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await withCategory(emu, 'CAT-1');
});
afterAll(async () => {
  await emu.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function imageAfterDrain(code: string, url: string) {
  expect((await emu.api('PUT', `/catalog/products/${code}`, { body: product({ image_url: url }) })).status).toBe(201);
  expect((await emu.control('POST', '/images/drain')).status).toBe(200);
  const list = await emu.api('GET', '/catalog/products?limit=200');
  return list.body.data.find((p: any) => p.external_id === code).image;
}

describe('image_url pointing at the control API', () => {
  it('is rejected without being fetched when it names /_emulator', async () => {
    const image = await imageAfterDrain('CTL-1', `${emu.running.admin_url}/stores`);
    expect(image).toMatchObject({ status: 'rejected', source: null });
    expect(image.error).toContain('/_emulator');
  });

  it.each([['/_EMULATOR/stores'], ['/%5Femulator/stores'], ['//_emulator/stores']])('is rejected for the spelling %s', async (path) => {
    const image = await imageAfterDrain(`CTL-${encodeURIComponent(path).length}`, `${emu.url}${path}`);
    expect(image.status).toBe('rejected');
    expect(image.error).toContain('/_emulator');
  });

  it('is rejected when another server redirects there', async () => {
    const before = hits;
    const image = await imageAfterDrain('CTL-R', `${base}/to-control`);
    expect(hits).toBe(before + 1);
    expect(image.status).toBe('rejected');
    expect(image.error).toContain('/_emulator');
  });
});
