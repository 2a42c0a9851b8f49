import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { buildOpenApiDocument } from '../../src/contract/openapi.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { DocumentValidator } from '../helpers/openapi.js';
import { seedMenu, simulate } from '../helpers/orders.js';

// issue 14, "Also found" (document): ProductPatch collapsed to `unknown` in generated clients; event
// `type`/`data`, error `details` and batch error details were untyped; cursors lacked minLength 1.
// The shapes are checked the way a code generator reads them (`resolve` below), and real answers of
// the emulator are checked against them.

type Schema = Record<string, any>;
const doc = buildOpenApiDocument() as Schema;
const schemas = doc.components.schemas as Record<string, Schema>;
const v = new DocumentValidator(doc);

/** What a generator makes of a schema: a type, or `unknown` when the schema says nothing it can type. */
type Shape =
  | { kind: 'unknown' }
  | { kind: 'scalar'; type: string; const?: unknown; enum?: unknown[]; minLength?: number }
  | { kind: 'array'; items: Shape }
  | { kind: 'object'; props: Record<string, Shape>; required: string[] }
  | { kind: 'union'; of: Shape[] };

const UNKNOWN: Shape = { kind: 'unknown' };

/**
 * The reading of openapi-typescript and openapi-generator: a `$ref` is its component; an
 * `anyOf`/`oneOf` is the union of its members, siblings ignored, and a member without a type makes
 * the whole union `unknown`; an `allOf` is the intersection of the node and its members, members
 * without a type adding nothing.
 */
function resolve(s: Schema | undefined, depth = 0): Shape {
  if (!s || depth > 12) return UNKNOWN;
  if (typeof s.$ref === 'string') return resolve(schemas[s.$ref.split('/').pop()!], depth + 1);
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key])) {
      const of = (s[key] as Schema[]).map((m) => resolve(m, depth + 1));
      return of.some((m) => m.kind === 'unknown') ? UNKNOWN : { kind: 'union', of };
    }
  }
  if (Array.isArray(s.allOf)) {
    const { allOf, ...rest } = s;
    const parts = [resolve(rest, depth + 1), ...(allOf as Schema[]).map((m) => resolve(m, depth + 1))].filter((p) => p.kind !== 'unknown');
    if (parts.length === 0) return UNKNOWN;
    const objects = parts.filter((p): p is Extract<Shape, { kind: 'object' }> => p.kind === 'object');
    if (objects.length !== parts.length) return parts[0]!;
    return { kind: 'object', props: Object.assign({}, ...objects.map((o) => o.props)), required: objects.flatMap((o) => o.required) };
  }
  if (s.type === 'object' || s.properties) {
    const props = Object.fromEntries(Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([k, p]) => [k, resolve(p, depth + 1)]));
    return { kind: 'object', props, required: (s.required as string[]) ?? [] };
  }
  if (s.type === 'array') return { kind: 'array', items: resolve(s.items, depth + 1) };
  if (typeof s.type === 'string' || 'const' in s || Array.isArray(s.enum)) {
    return { kind: 'scalar', type: s.type ?? 'any', const: s.const, enum: s.enum, minLength: s.minLength };
  }
  if (s.type === 'null') return { kind: 'scalar', type: 'null' };
  return UNKNOWN;
}

const object = (shape: Shape) => {
  expect(shape.kind).toBe('object');
  return shape as Extract<Shape, { kind: 'object' }>;
};
const union = (shape: Shape) => {
  expect(shape.kind).toBe('union');
  return (shape as Extract<Shape, { kind: 'union' }>).of;
};
const literal = (shape: Shape | undefined) => (shape && shape.kind === 'scalar' ? shape.const : undefined);

describe('the document as a code generator reads it (issue 14)', () => {
  it('reads ProductPatch as an object of price, available, active and source_updated_at, not unknown', () => {
    const patch = object(resolve(schemas.ProductPatch));
    expect(Object.keys(patch.props).sort()).toEqual(['active', 'available', 'price', 'source_updated_at']);
    expect(patch.props.price).toMatchObject({ kind: 'scalar', type: 'string' });
  });

  it('still refuses a ProductPatch that names none of price, available and active', () => {
    const validate = v.at('/components/schemas/ProductPatch');
    expect(validate({ source_updated_at: '2026-11-22T10:30:00-03:00' })).toBe(false);
    expect(validate({ available: false })).toBe(true);
  });

  it('reads no component as unknown', () => {
    const unknown = Object.keys(schemas).filter((name) => resolve(schemas[name]).kind === 'unknown');
    expect(unknown).toEqual([]);
  });

  it('types an event by its type: a union of one shape per event type, with a discriminator', () => {
    const items = object(resolve(schemas.FeedResponse)).props.data;
    const members = union((items as Extract<Shape, { kind: 'array' }>).items).map(object);
    expect(members.map((m) => literal(m.props.type))).toEqual([...EVENT_TYPES]);
    const mapping = schemas.Event.discriminator.mapping as Record<string, string>;
    expect(Object.keys(mapping)).toEqual([...EVENT_TYPES]);
    for (const [type, ref] of Object.entries(mapping)) expect(literal(object(resolve({ $ref: ref })).props.type)).toBe(type);
  });

  it('carries data.order in order events, and previous_status and changed_by in order.status_changed', () => {
    const byType = (type: string) => object(resolve({ $ref: schemas.Event.discriminator.mapping[type] }));
    for (const type of ['order.created', 'order.status_changed', 'order.updated']) {
      const data = object(byType(type).props.data);
      expect(data.required).toContain('order');
      expect(object(data.props.order).props).toHaveProperty('status_history');
    }
    const changed = object(byType('order.status_changed').props.data);
    expect(changed.required).toEqual(expect.arrayContaining(['order', 'previous_status', 'changed_by']));
    expect(changed.props.previous_status).toMatchObject({ kind: 'scalar', type: 'string', enum: expect.arrayContaining(['pending', 'accepted']) });
    const by = object(changed.props.changed_by);
    expect(Object.keys(by.props).sort()).toEqual(['integration_id', 'type']);
    for (const type of ['store.updated', 'integration.updated', 'webhook.test']) expect(byType(type).props.data.kind).toBe('object');
  });

  it('types error details per code: a list of {field, code, message} for validation, objects for state errors', () => {
    const shapes = union(object(resolve(schemas.ErrorBody)).props.error).map(object);
    const byCode = (code: string) => shapes.find((s) => literal(s.props.code) === code)!;
    const issue = object((byCode('validation_failed').props.details as Extract<Shape, { kind: 'array' }>).items);
    expect(issue.required).toEqual(['field', 'code', 'message']);
    expect(object(byCode('invalid_status_transition').props.details).required).toEqual(['current_status']);
    const expected = object(byCode('snapshot_out_of_order').props.details);
    expect(expected.props.expected_part).toMatchObject({ kind: 'scalar', type: 'integer' });
  });

  it('types a failed batch operation\'s error details as the list of {field, code, message}', () => {
    const item = object(resolve(schemas.BatchResultItem));
    const details = object(item.props.error).props.details as Extract<Shape, { kind: 'array' }>;
    expect(details.kind).toBe('array');
    expect(object(details.items).required).toEqual(['field', 'code', 'message']);
  });

  it('gives every cursor parameter and every next_cursor minLength 1', () => {
    const params = Object.values(doc.paths as Record<string, Record<string, Schema>>)
      .flatMap((ops) => Object.values(ops))
      .flatMap((op) => (op.parameters ?? []) as Schema[])
      .filter((p) => p.name === 'cursor' || p.name === 'after');
    expect(params.length).toBeGreaterThanOrEqual(4);
    for (const p of params) expect(resolve(p.schema)).toMatchObject({ kind: 'scalar', type: 'string', minLength: 1 });
    const envelopes = Object.values(schemas).filter((s) => s.properties?.next_cursor);
    expect(envelopes.length).toBeGreaterThanOrEqual(4);
    for (const s of envelopes) {
      const branches = union(resolve(s.properties.next_cursor));
      expect(branches).toContainEqual(expect.objectContaining({ type: 'string', minLength: 1 }));
    }
  });
});

describe('the emulator\'s answers fit the typed shapes', () => {
  let emu: TestEmulator;
  const errorBody = v.at('/components/schemas/ErrorBody');
  const feed = v.at('/components/schemas/FeedResponse');

  beforeAll(async () => {
    emu = await startTestEmulator();
    await seedMenu(emu);
  });
  afterAll(() => emu?.close());

  it('answers 409 invalid_status_transition with details.current_status, which the document types', async () => {
    const order = await simulate(emu);
    await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'rejected', reason: 'Sin stock' }, idempotencyKey: `reject-${order.id}` });
    const res = await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: `accept-${order.id}` });
    expect(res.body.error).toMatchObject({ code: 'invalid_status_transition', details: { current_status: 'rejected' } });
    expect(errorBody(res.body)).toBe(true);
    expect(errorBody({ error: { ...res.body.error, details: [{ field: 'status', code: 'invalid', message: 'x' }] } })).toBe(false);
  });

  it('answers 422 with a details list the document types, and refuses a list as state details', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-X', { body: { name: '' } });
    expect(errorBody(res.body)).toBe(true);
    expect(errorBody({ error: { ...res.body.error, details: { field: 'name' } } })).toBe(false);
  });

  it('gives feed pages whose events fit their type, and refuses a status change without previous_status', async () => {
    const order = await simulate(emu);
    await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: `acc-${order.id}` });
    const page = (await emu.api('GET', '/events?limit=200')).body;
    expect(page.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['order.created', 'order.status_changed']));
    expect(feed(page)).toBe(true);
    const changed = page.data.find((e: { type: string }) => e.type === 'order.status_changed');
    const { previous_status: _dropped, ...data } = changed.data;
    expect(feed({ ...page, data: [{ ...changed, data }] })).toBe(false);
    expect(feed({ ...page, data: [{ ...changed, type: 'order.created', data: {} }] })).toBe(false);
  });

  it('answers an empty cursor with 400 invalid_cursor, as minLength 1 says it cannot be', async () => {
    for (const path of ['/catalog/products?cursor=', '/catalog/categories?cursor=', '/orders?cursor=', '/events?after=']) {
      const res = await emu.api('GET', path);
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 400, code: 'invalid_cursor' });
    }
  });
});
