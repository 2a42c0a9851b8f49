import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contract/errors.js';
import { batchResponse } from '../../../src/contract/catalog.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// Random bodies, headers and paths at the catalog and batch endpoints: every answer is a well-formed
// success or a spec error body with a known code, never a 500.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  // Something to update, patch and deactivate.
  await emu.api('PUT', '/catalog/categories/CAT-1', { body: { name: 'Bebidas' } });
  await emu.api('PUT', '/catalog/products/SKU-1', {
    body: {
      name: 'Cola', category_external_id: 'CAT-1', price: '8000',
      option_groups: [{ external_id: 'G-1', name: 'Tamaño', options: [{ external_id: 'O-1', name: 'Grande' }] }],
    },
  });
});
afterAll(() => emu.close());

const code = fc.oneof(
  fc.constantFrom('CAT-1', 'SKU-1', 'O-1', 'G-1', 'NEW-1', 'NEW-2', 'a.b:c_d-e'),
  fc.string({ maxLength: 70 }),
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
);

const amountLike = fc.oneof(fc.constantFrom('0', '15000', '15000.50', '1.999', '-1', '1e3', ''), fc.integer(), fc.double());
const optionData = fc.record(
  { external_id: code, name: fc.string({ maxLength: 10 }), price: amountLike, available: fc.oneof(fc.boolean(), fc.jsonValue()) },
  { requiredKeys: [] },
);
const groupData = fc.record(
  {
    external_id: code,
    name: fc.string({ maxLength: 10 }),
    min_select: fc.integer({ min: -2, max: 60 }),
    max_select: fc.integer({ min: -2, max: 60 }),
    options: fc.array(optionData, { maxLength: 4 }),
  },
  { requiredKeys: [] },
);
const catalogData = fc.oneof(
  fc.record({ name: fc.string({ maxLength: 130 }), position: fc.integer({ min: -1, max: 100_001 }), active: fc.boolean() }, { requiredKeys: [] }),
  fc.record(
    {
      name: fc.string({ maxLength: 20 }),
      category_external_id: code,
      price: amountLike,
      available: fc.boolean(),
      active: fc.boolean(),
      image_url: fc.oneof(fc.webUrl(), fc.string()),
      image_mode: fc.constantFrom('replace', 'if_empty', 'other'),
      option_groups: fc.array(groupData, { maxLength: 3 }),
      source_updated_at: fc.oneof(fc.constantFrom('2026-11-22T10:30:00-03:00', '2026-13-40T99:99:99Z', 'yesterday'), fc.string()),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

const OPS = ['upsert_category', 'deactivate_category', 'upsert_product', 'patch_product', 'deactivate_product', 'patch_option'] as const;
// Well-formed operations with valid data, so that many get past validation into the service.
const categoryCode = fc.constantFrom('CAT-1', 'CAT-2', 'NOPE');
const productCode = fc.constantFrom('SKU-1', 'SKU-2', 'NEW-1');
const validProduct = fc.record({
  name: fc.constantFrom('Cola', 'Agua'),
  category_external_id: categoryCode,
  price: fc.constantFrom('8000', '100.50'),
  option_groups: fc.array(
    fc.record({
      external_id: fc.constantFrom('G-1', 'G-2'),
      name: fc.constant('G'),
      options: fc.array(fc.record({ external_id: fc.constantFrom('O-1', 'O-2', 'O-3'), name: fc.constant('O') }), { maxLength: 2 }),
    }),
    { maxLength: 2 },
  ),
});
const validOperation = fc.oneof(
  fc.record({ op: fc.constant('upsert_category'), external_id: categoryCode, data: fc.record({ name: fc.constantFrom('Bebidas', 'Postres') }) }),
  fc.record({ op: fc.constant('deactivate_category'), external_id: categoryCode }),
  fc.record({ op: fc.constant('upsert_product'), external_id: productCode, data: validProduct }),
  fc.record({ op: fc.constant('patch_product'), external_id: productCode, data: fc.record({ price: fc.constantFrom('9000', '0'), available: fc.boolean() }) }),
  fc.record({ op: fc.constant('deactivate_product'), external_id: productCode }),
  fc.record({ op: fc.constant('patch_option'), external_id: fc.constantFrom('O-1', 'O-2', 'O-9'), data: fc.record({ available: fc.boolean() }) }),
);

const operation = fc.oneof(
  { weight: 6, arbitrary: validOperation },
  {
    weight: 2,
    arbitrary: fc.record(
      { op: fc.constantFrom(...OPS), external_id: code, data: catalogData, link_to_id: fc.constant('prd_01JD0000000000000000000000') },
      { requiredKeys: ['op', 'external_id'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { op: fc.oneof(fc.constantFrom(...OPS), fc.string()), external_id: fc.oneof(code, fc.jsonValue()), data: catalogData, link_to_id: fc.string() },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const batchBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.array(operation, { minLength: 1, maxLength: 8 }),
      fc.oneof(
        fc.constant({}),
        fc.constant({ full_snapshot: true }),
        fc.record({
          full_snapshot: fc.constant(true),
          snapshot_id: fc.constantFrom('S-1', 'S-2', 'S-3'),
          snapshot_part: fc.integer({ min: 1, max: 3 }),
          snapshot_last: fc.boolean(),
        }),
      ),
    ).map(([operations, snapshot]) => ({ operations, ...snapshot })),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        operations: fc.oneof(fc.array(operation, { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
        full_snapshot: fc.jsonValue({ maxDepth: 1 }),
        snapshot_id: fc.string({ maxLength: 110 }),
        snapshot_part: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.double()),
        snapshot_last: fc.jsonValue({ maxDepth: 1 }),
        extra: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    ),
  },
);

const enc = (c: string) => encodeURIComponent(c);
// Mostly the endpoints' own methods, so that most requests get past routing into the handlers.
const target = fc.oneof(
  { weight: 8, arbitrary: fc.constant<[string, string]>(['POST', '/catalog/batch']) },
  { weight: 2, arbitrary: code.map((c): [string, string] => ['PUT', `/catalog/categories/${enc(c)}`]) },
  { weight: 1, arbitrary: code.map((c): [string, string] => ['DELETE', `/catalog/categories/${enc(c)}`]) },
  { weight: 3, arbitrary: code.map((c): [string, string] => ['PUT', `/catalog/products/${enc(c)}`]) },
  { weight: 2, arbitrary: code.map((c): [string, string] => ['PATCH', `/catalog/products/${enc(c)}`]) },
  { weight: 1, arbitrary: code.map((c): [string, string] => ['DELETE', `/catalog/products/${enc(c)}`]) },
  { weight: 2, arbitrary: code.map((c): [string, string] => ['PATCH', `/catalog/options/${enc(c)}`]) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((q): [string, string] => ['GET', `/catalog/products?${enc(q)}=${enc(q)}`]) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'POST'),
      fc.constantFrom('/catalog/products?limit=0', '/catalog/products?cursor=zzz', '/catalog/categories?updated_since=ayer', '/catalog/products/%E0%A4%A', '/catalog/batch', '/catalog/options/O-1'),
    ),
  },
);

const body = fc.oneof(
  { weight: 4, arbitrary: batchBody.map((b) => JSON.stringify(b)) },
  { weight: 3, arbitrary: catalogData.map((d) => JSON.stringify(d)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

// Printable ASCII only: fetch itself refuses control characters in header values.
const headerText = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 110 });
const idempotencyKey = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('fuzz-key-0001', 'fuzz-key-0002') },
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{8,100}$/) },
  { weight: 1, arbitrary: headerText },
);
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json', 'application/json; charset=latin1') },
);

const KNOWN = new Set<string>(ERROR_CODES);

describe('catalog and batch endpoints under random input', () => {
  it('answer a success envelope or a spec error body with a known code, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(target, body, contentType, idempotencyKey, async ([method, p], raw, type, key) => {
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        if (key) headers['idempotency-key'] = key;
        const res = await emu.api(method, p, { rawBody: method === 'GET' ? undefined : raw, headers });
        expect(res.status).toBeLessThan(500);
        // spec: Conventions, Format — a body sent as anything but application/json never succeeds.
        if (method !== 'GET' && raw && !JSON_TYPES.has(type ?? '')) {
          expect(res.status).toBeGreaterThanOrEqual(400);
          if (res.status === 400) expect(res.body.error.code).toBe('malformed_json');
        }
        expect(res.body).toBeTypeOf('object');
        if (res.status < 300) {
          expect(res.body).toHaveProperty('data');
          if (p === '/catalog/batch') {
            const data = batchResponse.parse(res.body.data);
            expect(data.summary.total).toBe(data.results.length);
            expect(data.summary.failed).toBe(data.results.filter((r) => r.result === 'error').length);
          }
        } else {
          expect(KNOWN.has(res.body.error?.code)).toBe(true);
          expect(res.body.error.message).toBeTypeOf('string');
          expect(res.body.error.request_id).toMatch(/^req_[0-9A-Z]{26}$/);
        }
      }),
      { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
  });
});
