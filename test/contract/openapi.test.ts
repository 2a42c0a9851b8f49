import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_ENDPOINTS } from '../../src/contract/api.js';
import { BOUNDED_AMOUNT_PATTERN } from '../../src/contract/amounts.js';
import { endpoint } from '../../src/contract/endpoint.js';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../src/contract/errors.js';
import { buildOpenApiDocument, errorCodesOf, variantsOf, type OpenApiDocument } from '../../src/contract/openapi.js';
import { startTestEmulator, request, type TestEmulator } from '../helpers/emulator.js';

// spec: Endpoints — method, path, permission (null: any valid credential) and Key column of every row.
const SPEC_ENDPOINTS: [string, string, string | null, 'required' | 'optional' | 'none'][] = [
  ['GET', '/me', null, 'none'],
  ['GET', '/store', 'store:read', 'none'],
  ['PATCH', '/store', 'store:write', 'optional'],
  ['GET', '/catalog/categories', 'catalog:read', 'none'],
  ['PUT', '/catalog/categories/{external_id}', 'catalog:write', 'none'],
  ['DELETE', '/catalog/categories/{external_id}', 'catalog:write', 'none'],
  ['GET', '/catalog/products', 'catalog:read', 'none'],
  ['PUT', '/catalog/products/{external_id}', 'catalog:write', 'none'],
  ['PATCH', '/catalog/products/{external_id}', 'catalog:write', 'optional'],
  ['DELETE', '/catalog/products/{external_id}', 'catalog:write', 'none'],
  ['PATCH', '/catalog/options/{external_id}', 'catalog:write', 'optional'],
  ['POST', '/catalog/batch', 'catalog:write', 'required'],
  ['GET', '/orders', 'orders:read', 'none'],
  ['GET', '/orders/by-external-id/{external_id}', 'orders:read', 'none'],
  ['GET', '/orders/{order_id}', 'orders:read', 'none'],
  ['POST', '/orders/{order_id}/ack', 'orders:write', 'required'],
  ['POST', '/orders/{order_id}/import-failure', 'orders:write', 'required'],
  ['POST', '/orders/{order_id}/status', 'orders:write', 'required'],
  ['GET', '/events', 'orders:read', 'none'],
  ['GET', '/webhook', 'webhooks:manage', 'none'],
  ['PUT', '/webhook', 'webhooks:manage', 'none'],
  ['POST', '/webhook/rotate-secret', 'webhooks:manage', 'optional'],
  ['POST', '/webhook/test', 'webhooks:manage', 'optional'],
  ['GET', '/webhook/deliveries', 'webhooks:manage', 'none'],
  ['POST', '/webhook/deliveries/{delivery_id}/retry', 'webhooks:manage', 'none'],
  ['POST', '/entregas', 'orders:write', 'required'],
  ['GET', '/entregas/{id}', 'orders:read', 'none'],
  ['POST', '/entregas/{id}/{action}', 'orders:write', 'required'],
];

type Operation = Record<string, any>;
const doc = buildOpenApiDocument();
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Operation })),
);
const apiOperations = operations.filter((o) => o.path !== '/openapi.json');
/** The document's operations of a contract row: one, or one per value of a row with `bodiesByParam`. */
const opsOfRow = (e: (typeof ALL_ENDPOINTS)[number]) => variantsOf(e).map((v) => doc.paths[v.path]?.[v.method.toLowerCase()] as Operation);
const rowOf = (method: string, path: string) => ALL_ENDPOINTS.find((e) => e.method === method && e.path === path)!;
/** A spec path as a pattern: `{name}` stands for one segment (a variant writes the value there). */
const templateMatches = (template: string, path: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.replace(/\{[^}]+\}/g, 'x'));

/** Follows a local `#/…` pointer inside the document. */
function resolvePointer(document: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, key) => (node === undefined ? undefined : node[key]), document);
}

function allRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => allRefs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) k === '$ref' && typeof v === 'string' ? out.push(v) : allRefs(v, out);
  }
  return out;
}

describe('the OpenAPI document (spec: Versioning 1)', () => {
  it('is a valid OpenAPI 3.1 document for the official schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is numbered 1.0.4', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe('1.0.4');
  });

  it('resolves every $ref inside the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      expect(resolvePointer(doc, ref), ref).toBeDefined();
    }
  });

  it('lists the production and test base addresses as servers', () => {
    expect((doc.servers as { url: string }[]).map((s) => s.url)).toEqual(['/v1', '/sandbox/v1']);
  });

  it.each(SPEC_ENDPOINTS)('describes %s %s', (method, path) => {
    const ops = opsOfRow(rowOf(method, path));
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) expect(op, `${method} ${path}`).toBeDefined();
  });

  it('describes each action of /entregas/{id}/{action} as its own path with its own body', () => {
    for (const action of ['pickup', 'raise_fee', 'cancel', 'returned']) {
      const op = doc.paths[`/entregas/{id}/${action}`]?.post as Operation;
      expect(op?.operationId).toBe(`entregaAction${action.replace(/(^|_)(.)/g, (_m, _s, c: string) => c.toUpperCase())}`);
      expect(op.parameters.filter((p: Operation) => p.in === 'path').map((p: Operation) => p.name)).toEqual(['id']);
      expect(op.requestBody.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/EntregaAction.+Body$/);
    }
    expect(doc.paths['/entregas/{id}/{action}']).toBeUndefined();
  });

  it('has one operation per contract row and nothing else but the document itself', () => {
    expect(apiOperations.map((o) => o.op.operationId).sort()).toEqual(ALL_ENDPOINTS.flatMap(variantsOf).map((e) => e.id).sort());
    for (const o of apiOperations) {
      expect(SPEC_ENDPOINTS.some(([m, p]) => m === o.method && templateMatches(p, o.path)), `${o.method} ${o.path} is not in the spec`).toBe(true);
    }
  });

  it.each(SPEC_ENDPOINTS)('%s %s requires the spec permission %s and Idempotency-Key %s', (method, path, scope, key) => {
    for (const op of opsOfRow(rowOf(method, path))) checkPermission(op, scope, key);
  });

  function checkPermission(op: Operation | undefined, scope: string | null, key: string): void {
    if (!op) return; // reported by the test above
    expect(op['x-required-scope']).toBe(scope);
    expect(op.description).toContain(scope ?? 'Cualquier credencial válida');
    const param = (op.parameters ?? []).find((p: Operation) => p.$ref?.includes('IdempotencyKey'));
    if (key === 'none') expect(param).toBeUndefined();
    else expect(param.$ref).toBe(`#/components/parameters/IdempotencyKey${key === 'required' ? 'Required' : 'Optional'}`);
  }

  it('asks for the bearer credential on every API operation and on no other', () => {
    expect(doc.components).toMatchObject({ securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } });
    for (const { op } of apiOperations) expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('documents the Idempotency-Key header with the spec format', () => {
    const param = resolvePointer(doc, '#/components/parameters/IdempotencyKeyRequired') as Operation;
    expect(param).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
    expect(new RegExp(param.schema.pattern).test('abc-1234')).toBe(true);
    expect(new RegExp(param.schema.pattern).test('short')).toBe(false);
  });

  it('documents X-Request-Id on every response and the rate-limit headers on every success', () => {
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Operation>)) {
        expect(response.headers['X-Request-Id'], `${op.operationId} ${status}`).toEqual({ $ref: '#/components/headers/XRequestId' });
        if (status.startsWith('2') && op.operationId !== 'getOpenApi') {
          expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining']));
        }
      }
    }
  });

  it('answers every error of a row and the common 401, 429 and 500 with the error body', () => {
    for (const e of ALL_ENDPOINTS.flatMap(variantsOf)) {
      const op = doc.paths[e.path][e.method.toLowerCase()] as Operation;
      for (const code of [...e.errors, 'unauthenticated', 'rate_limited', 'internal_error'] as const) {
        const response = op.responses[String(ERROR_CATALOGUE[code].status)];
        expect(response?.['x-error-codes'], `${e.id} ${code}`).toContain(code);
        expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      }
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining([String(e.status), ...(e.alsoStatus ?? []).map(String)]));
    }
  });

  it('answers 403 on every operation but GET /me', () => {
    for (const e of ALL_ENDPOINTS.flatMap(variantsOf)) {
      const codes = (doc.paths[e.path][e.method.toLowerCase()] as Operation).responses['403']?.['x-error-codes'] ?? [];
      if (e.scope === null) expect(codes).not.toContain('insufficient_scope');
      else expect(codes).toEqual(expect.arrayContaining(['insufficient_scope', 'integration_suspended', 'store_suspended']));
    }
  });

  it('answers idempotency_key_required only where the key is required', () => {
    for (const e of ALL_ENDPOINTS) expect(errorCodesOf(e).includes('idempotency_key_required')).toBe(e.idempotency === 'required');
  });

  it('documents 422 validation_failed and 400 malformed_json on every write, with a body or not', () => {
    for (const e of ALL_ENDPOINTS.filter((x) => x.method !== 'GET')) {
      expect(errorCodesOf(e), `${e.method} ${e.path}`).toEqual(expect.arrayContaining(['validation_failed', 'malformed_json']));
    }
    expect(errorCodesOf(ALL_ENDPOINTS.find((x) => x.id === 'putCategory')!)).toContain('category_not_empty');
  });

  it('describes the error body with code as the enum of every spec code', () => {
    const body = doc.components as Operation;
    // One shape per code that carries details, one for the rest (issue 14: details typed per code).
    const shapes = body.schemas.ErrorBody.properties.error.oneOf as Operation[];
    const codes = shapes.flatMap((s) => (s.properties.code.const !== undefined ? [s.properties.code.const] : s.properties.code.enum));
    expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
    for (const shape of shapes) expect(shape.required).toEqual(['code', 'message', 'request_id']);
    expect(body.schemas.ErrorBody.required).toEqual(['error']);
  });

  it('generates its schemas from the zod contract, requests strict and responses open', () => {
    const schemas = (doc.components as Operation).schemas;
    expect(schemas.Amount.pattern).toBe(BOUNDED_AMOUNT_PATTERN.source);
    expect(schemas.ProductInput.additionalProperties).toBe(false);
    expect(schemas.ProductInput.required).toEqual(['name', 'category_external_id', 'price']);
    expect(schemas.Product.additionalProperties).toBeUndefined();
    expect(schemas.Product.required).toContain('option_groups');
    const limit = (doc.paths['/catalog/products'].get.parameters as Operation[]).find((p) => p.name === 'limit')!;
    expect(resolvePointer(doc, limit.schema.$ref ?? '#/x') ?? limit.schema).toMatchObject({ minimum: 1, maximum: 200 });
  });

  it('describes each batch operation as a union on op with the data schema of the operation', () => {
    const schemas = (doc.components as Operation).schemas as Record<string, Operation>;
    const post = doc.paths['/catalog/batch'].post as Operation;
    const body = resolvePointer(doc, post.requestBody.content['application/json'].schema.$ref) as Operation;
    const items = body.properties.operations.items as Operation;
    const union = (items.$ref ? resolvePointer(doc, items.$ref) : items) as Operation;
    const variants = (union.oneOf ?? union.anyOf) as Operation[];
    const byOp = Object.fromEntries(variants.map((v) => [v.properties.op.const, v]));
    expect(Object.keys(byOp).sort()).toEqual(
      ['deactivate_category', 'deactivate_product', 'patch_option', 'patch_product', 'upsert_category', 'upsert_product'],
    );
    expect(byOp.upsert_category.properties.data.$ref).toBe('#/components/schemas/CategoryInput');
    expect(byOp.upsert_product.properties.data.$ref).toBe('#/components/schemas/ProductInput');
    expect(byOp.upsert_product.properties.link_to_id).toBeDefined();
    expect(byOp.patch_product.properties.data.$ref).toBe('#/components/schemas/ProductPatch');
    expect(byOp.patch_option.properties.data.$ref).toBe('#/components/schemas/OptionPatch');
    for (const op of ['deactivate_category', 'deactivate_product']) {
      expect(byOp[op].properties.data).toBeUndefined();
      expect(byOp[op].required).toEqual(['op', 'external_id']);
    }
    expect(schemas.ProductInput.required).toEqual(['name', 'category_external_id', 'price']);
  });

  it('describes the batch response with its snapshot and the error of each operation', () => {
    const post = doc.paths['/catalog/batch'].post as Operation;
    const envelope = resolvePointer(doc, post.responses['200'].content['application/json'].schema.$ref) as Operation;
    const deref = (s: Operation) => (s.$ref ? (resolvePointer(doc, s.$ref) as Operation) : s);
    const response = deref(envelope.properties.data);
    expect(response.properties.snapshot).toBeDefined();
    expect(deref(response.properties.snapshot).properties.status.enum).toEqual(['open', 'completed', 'expired']);
    const item = deref(response.properties.results.items);
    expect(item.properties.result.enum).toContain('error');
    expect(deref(item.properties.error).required).toEqual(['code', 'message']);
  });

  it('declares every path parameter of a path', () => {
    for (const { path, op } of apiOperations) {
      const names = (op.parameters ?? []).filter((p: Operation) => p.in === 'path').map((p: Operation) => p.name);
      expect(names.sort()).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
    }
  });
});

describe('the generator on rows it has not seen', () => {
  const shared = z.object({ n: z.int().default(1) });
  const rows = [
    endpoint({
      id: 'postThing', method: 'POST', path: '/things/{thing_id}', summary: 'x', scope: 'orders:write', idempotency: 'required',
      params: z.strictObject({ thing_id: z.string() }), query: z.object({ q: z.enum(['a', 'b']).optional() }),
      body: shared, status: 202, response: z.object({ data: shared }), errors: ['store_closed'],
    }),
  ];
  const small: OpenApiDocument = buildOpenApiDocument(rows);

  it('builds a valid document from any rows', async () => {
    const result = await new Validator().validate(structuredClone(small) as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    const op = small.paths['/things/{thing_id}'].post as Operation;
    expect(op.parameters.map((p: Operation) => p.name ?? p.$ref)).toEqual(['thing_id', 'q', '#/components/parameters/IdempotencyKeyRequired']);
    expect(op.responses['409']['x-error-codes']).toEqual(['store_closed', 'idempotency_conflict', 'request_in_progress']);
  });

  it('names a schema read differently by requests and responses twice, without dangling refs', () => {
    const schemas = (small.components as Operation).schemas as Record<string, Operation>;
    const names = Object.keys(schemas).filter((n) => schemas[n].properties?.n);
    expect(names).toHaveLength(2);
    const [input, output] = [names.find((n) => n.endsWith('Input'))!, names.find((n) => !n.endsWith('Input'))!];
    expect(schemas[input].required).toBeUndefined();
    expect(schemas[output].required).toEqual(['n']);
    for (const ref of allRefs(small)) expect(resolvePointer(small, ref), ref).toBeDefined();
  });
});

describe('GET /openapi.json over HTTP', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it.each(['/v1', '/sandbox/v1'])('answers the document on %s without a credential', async (base) => {
    const res = await request(`${emu.url}${base}/openapi.json`, 'GET');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('answers it even with a wrong credential, while an API route answers 401', async () => {
    const res = await request(`${emu.url}/v1/openapi.json`, 'GET', { credential: 'svk_live_x.svs_live_y' });
    expect(res.status).toBe(200);
    expect((await emu.liveApi('GET', '/me', { credential: null })).status).toBe(401);
  });
});
