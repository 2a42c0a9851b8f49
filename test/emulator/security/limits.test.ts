import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { allProducts, batch, upsertCategory, upsertProduct } from '../../helpers/batch.js';

const PNG_HEAD = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const FIVE_MB = 5_000_000;

let emu: TestEmulator;
let images: Server;
let imageBase: string;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  images = createServer((req, res) => {
    const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size'));
    const body = Buffer.alloc(size, 7);
    PNG_HEAD.copy(body);
    res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emu.close();
  images.closeAllConnections();
  await new Promise((r) => images.close(r));
});

describe('POST /catalog/batch with an empty operations list', () => {
  it('answers 422 validation_failed on operations, also as a full snapshot, and deactivates nothing', async () => {
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { missing_items_policy: 'deactivate' } });
    expect((await batch(emu, { operations: [upsertCategory('CAT-E'), upsertProduct('P-E', 'CAT-E')] })).status).toBe(200);
    for (const body of [{ operations: [] }, { operations: [], full_snapshot: true }, { operations: [], full_snapshot: true, snapshot_id: 'S-EMPTY', snapshot_part: 1, snapshot_last: true }]) {
      const res = await batch(emu, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'operations', code: 'too_small' })]);
    }
    const products = await allProducts(emu);
    expect(products.find((p) => p.external_id === 'P-E').active).toBe(true);
  });
});

describe('5 MB is 5,000,000 bytes', () => {
  const bodyOf = (bytes: number) => {
    const frame = '{"accepting_orders":true,"pad":""}';
    return frame.replace('""', `"${'x'.repeat(bytes - frame.length)}"`);
  };

  it('answers 413 payload_too_large to a body of 5,000,001 bytes and reads one of 5,000,000', async () => {
    const over = await emu.api('PATCH', '/store', { rawBody: bodyOf(FIVE_MB + 1), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
    const at = await emu.api('PATCH', '/store', { rawBody: bodyOf(FIVE_MB), headers: { 'content-type': 'application/json' } });
    expect(at.status).toBe(422); // read and validated: "pad" is not a field
    expect(at.body.error.details.map((d: any) => d.field)).toContain('pad');
  });

  it('accepts an image of 5,000,000 bytes and rejects one of 5,000,001', async () => {
    await emu.api('PUT', '/catalog/categories/CAT-IMG', { body: { name: 'Imágenes' } });
    const put = (code: string, size: number) =>
      emu.api('PUT', `/catalog/products/${code}`, { body: { name: code, category_external_id: 'CAT-IMG', price: '1000', image_url: `${imageBase}/i.png?size=${size}` } });
    await put('IMG-AT', FIVE_MB);
    await put('IMG-OVER', FIVE_MB + 1);
    await emu.control('POST', '/images/drain');
    const products = await allProducts(emu);
    expect(products.find((p) => p.external_id === 'IMG-AT').image.status).toBe('ready');
    const over = products.find((p) => p.external_id === 'IMG-OVER').image;
    expect(over.status).toBe('rejected');
    expect(over.error).toMatch(/5 MB/);
  });
});

describe('where the docs’ stricter-than-the-spec table applies', () => {
  it.each(['application/merge-patch+json', 'application/vnd.api+json', 'application/problem+json'])('answers 400 malformed_json to Content-Type %s', async (type) => {
    const res = await emu.api('PATCH', '/store', { rawBody: '{"accepting_orders":false}', headers: { 'content-type': type } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('answers 422 to an optional field sent as null', async () => {
    const res = await emu.api('PUT', '/catalog/products/NULLS', { body: { name: 'x', category_external_id: 'CAT-IMG', price: '1000', description: null } });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'description', code: 'invalid_type' }));
  });

  it('answers 422 to a snapshot_id outside ^[A-Za-z0-9._:-]{1,100}$', async () => {
    const res = await batch(emu, { operations: [upsertCategory('CAT-S')], full_snapshot: true, snapshot_id: 'with space' });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'snapshot_id', code: 'invalid' }));
  });
});
