import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { categoryInput, productInput, productPatch } from '../../src/contract/catalog.js';
import { amount, datetime, externalId, id } from '../../src/contract/common.js';
import { storePatch } from '../../src/contract/store.js';
import { issuesToDetails, PARAMS_MEMO_SIZE, parseOrThrow, parseParams } from '../../src/contract/validation.js';

function details(schema: z.ZodType, input: unknown, prefix = ''): FieldIssue[] {
  try {
    parseOrThrow(schema, input, prefix);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('validation_failed');
    expect((error as ApiError).status).toBe(422);
    return (error as ApiError).details as FieldIssue[];
  }
  throw new Error('expected a validation error');
}

const product = { name: 'Pizza', category_external_id: 'pizzas', price: '45000' };
const group = (options: unknown[]) => ({ external_id: 'g1', name: 'Tamaño', options });

describe('parseOrThrow details (spec: Errors — details [{field, code, message}], DESIGN: dotted paths)', () => {
  it.each<[string, z.ZodType, unknown, Pick<FieldIssue, 'field' | 'code'>[]]>([
    ['a missing field is required', categoryInput, {}, [{ field: 'name', code: 'required' }]],
    ['a missing enum field is required', z.strictObject({ e: z.enum(['a', 'b']) }), {}, [{ field: 'e', code: 'required' }]],
    ['an empty required text is required', categoryInput, { name: '' }, [{ field: 'name', code: 'required' }]],
    ['an unknown field is unknown_field', storePatch, { accepting_orders: true, paused: 1 }, [{ field: 'paused', code: 'unknown_field' }]],
    ['each unknown field has its entry', storePatch, { accepting_orders: true, a: 1, b: 2 }, [{ field: 'a', code: 'unknown_field' }, { field: 'b', code: 'unknown_field' }]],
    ['a wrong type is invalid_type', storePatch, { accepting_orders: 'yes' }, [{ field: 'accepting_orders', code: 'invalid_type' }]],
    ['null is not missing', categoryInput, { name: null }, [{ field: 'name', code: 'invalid_type' }]],
    ['a text over its length is too_long', categoryInput, { name: 'x'.repeat(121) }, [{ field: 'name', code: 'too_long' }]],
    ['a number over its bound is too_big', categoryInput, { name: 'a', position: 100_001 }, [{ field: 'position', code: 'too_big' }]],
    ['a number under its bound is too_small', categoryInput, { name: 'a', position: -1 }, [{ field: 'position', code: 'too_small' }]],
    ['a fraction where an integer goes is invalid_type', categoryInput, { name: 'a', position: 1.5 }, [{ field: 'position', code: 'invalid_type' }]],
    ['a value outside the enumeration is invalid_value', productInput, { ...product, image_mode: 'x' }, [{ field: 'image_mode', code: 'invalid_value' }]],
    ['an amount as a number is invalid_type', productInput, { ...product, price: 45000 }, [{ field: 'price', code: 'invalid_type' }]],
    ['an amount with 3 decimals is invalid', productInput, { ...product, price: '1.234' }, [{ field: 'price', code: 'invalid' }]],
    ['an amount too large is invalid', productInput, { ...product, price: '99999999999999' }, [{ field: 'price', code: 'invalid' }]],
    ['a date without offset is invalid', categoryInput, { name: 'a', source_updated_at: '2026-11-22T10:30:00' }, [{ field: 'source_updated_at', code: 'invalid' }]],
    ['an impossible date is invalid', categoryInput, { name: 'a', source_updated_at: '2026-02-30T10:30:00Z' }, [{ field: 'source_updated_at', code: 'invalid' }]],
    ['a bad external code is invalid', productInput, { ...product, category_external_id: 'con espacio' }, [{ field: 'category_external_id', code: 'invalid' }]],
    [
      'a nested problem has a dotted path with array indexes',
      productInput,
      { ...product, option_groups: [group([{ external_id: 'o1', name: 'Grande', price: '1.234' }])] },
      [{ field: 'option_groups.0.options.0.price', code: 'invalid' }],
    ],
    [
      'a nested unknown field has a dotted path',
      productInput,
      { ...product, option_groups: [group([{ external_id: 'o1', name: 'Grande', color: 'rojo' }])] },
      [{ field: 'option_groups.0.options.0.color', code: 'unknown_field' }],
    ],
    [
      'a nested missing field is required',
      productInput,
      { ...product, option_groups: [group([{ name: 'Grande' }])] },
      [{ field: 'option_groups.0.options.0.external_id', code: 'required' }],
    ],
    ['a refinement with a code keeps it', productInput, { ...product, option_groups: [group([]), group([])] }, [{ field: 'option_groups.1.external_id', code: 'duplicate' }]],
    ['a whole-body rule is reported', productPatch, {}, [{ field: '', code: 'required' }]],
    ['an array over its maximum is too_many', productInput, { ...product, option_groups: Array.from({ length: 21 }, (_, i) => ({ ...group([]), external_id: `g${i}` })) }, [{ field: 'option_groups', code: 'too_many' }]],
  ])('%s', (_name, schema, input, expected) => {
    const got = details(schema, input);
    expect(got.map(({ field, code }) => ({ field, code }))).toEqual(expected);
  });

  it('puts a prefix before every field', () => {
    expect(details(storePatch, { accepting_orders: 1, x: 1 }, 'operations.3.data').map((d) => d.field)).toEqual([
      'operations.3.data.accepting_orders',
      'operations.3.data.x',
    ]);
  });

  it('returns the parsed value, with defaults, when the input is valid', () => {
    expect(parseOrThrow(categoryInput, { name: 'Pizzas' })).toEqual({ name: 'Pizzas', active: true });
  });
});

describe('messages in clear Spanish', () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['required', categoryInput, {}, 'El campo es obligatorio.'],
    ['unknown field', storePatch, { accepting_orders: true, paused: 1 }, 'El campo "paused" no es parte de esta operación.'],
    ['boolean', storePatch, { accepting_orders: 'yes' }, 'Debe ser verdadero o falso (true/false).'],
    ['text length', categoryInput, { name: 'x'.repeat(121) }, 'Debe tener como máximo 120 caracteres.'],
    ['bound', categoryInput, { name: 'a', position: 100_001 }, 'Debe ser como máximo 100000.'],
    ['amount', z.object({ price: amount }), { price: '1,5' }, 'Monto inválido: texto decimal con punto y hasta 2 decimales, sin separador de miles (ej. "15000.50").'],
    ['amount too large', z.object({ price: amount }), { price: '99999999999999' }, 'El monto es demasiado grande.'],
    ['date', z.object({ at: datetime }), { at: '2026-11-22T10:30:00' }, 'Fecha inválida: ISO 8601 con desplazamiento explícito (ej. 2026-11-22T10:30:00-03:00).'],
    ['impossible date', z.object({ at: datetime }), { at: '2026-02-30T10:30:00Z' }, 'Fecha inválida.'],
    ['external code', z.object({ id: externalId }), { id: 'a b' }, 'Debe tener de 1 a 64 caracteres: letras, dígitos y . _ : -'],
    ['another code length', z.object({ id: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/) }), { id: 'a b' }, 'Debe tener de 1 a 100 caracteres: letras, dígitos y . _ : -'],
    ['one element', z.object({ list: z.array(z.string()).min(1) }), { list: [] }, 'Requiere al menos 1 elemento.'],
    ['elements', z.object({ list: z.array(z.string()).max(2) }), { list: ['a', 'b', 'c'] }, 'Admite como máximo 2 elementos.'],
    ['exclusive bound', z.object({ n: z.number().positive() }), { n: 0 }, 'Debe ser mayor que 0.'],
  ])('explains %s', (_name, schema, input, message) => {
    expect(details(schema, input)[0].message).toBe(message);
  });
});

describe('issuesToDetails', () => {
  it('gives one entry per problem, in the order zod found them', () => {
    const result = categoryInput.safeParse({ name: '', position: 'x', extra: 1 }, { reportInput: true });
    expect(result.success).toBe(false);
    const got = issuesToDetails(result.error!.issues);
    expect(got.map((d) => d.field).sort()).toEqual(['extra', 'name', 'position']);
    for (const d of got) expect(d.message).toMatch(/^[A-ZÁÉÍÓÚ"]/);
  });
});

// issue 15: lone UTF-16 surrogates (`"\ud800"` in the JSON) were accepted and stored as three U+FFFD.
describe('ill-formed text (a lone UTF-16 surrogate)', () => {
  it.each<[string, z.ZodType, unknown, string[]]>([
    ['a required text', categoryInput, { name: 'Pizza \ud800' }, ['name']],
    ['a low half alone', categoryInput, { name: '\udc00Pizza' }, ['name']],
    ['a text deep in a product', productInput, { ...product, option_groups: [group([{ external_id: 'o1', name: 'Grande \udfff' }])] }, ['option_groups.0.options.0.name']],
    ['two fields', productInput, { ...product, name: 'a\ud800', description: 'b\udbff' }, ['name', 'description']],
    ['an unknown field too', storePatch, { accepting_orders: true, nota: '\ud800' }, ['nota']],
  ])('refuses %s with 422 validation_failed naming the field', (_what, schema, input, fields) => {
    const got = details(schema, input);
    for (const field of fields) expect(got).toContainEqual(expect.objectContaining({ field }));
    expect(got.filter((d) => d.code === 'invalid' && /sustituto/.test(d.message)).map((d) => d.field)).toEqual(fields.filter((f) => f !== 'nota'));
  });

  it('accepts a text with its surrogate pairs whole (emoji, astral characters)', () => {
    expect(parseOrThrow(categoryInput, { name: 'Pizza 🍕 𝔸' })).toMatchObject({ name: 'Pizza 🍕 𝔸' });
  });

  it('leaves a value the schema reads later (a batch operation) to that later step', () => {
    const batch = z.strictObject({ operations: z.array(z.unknown()) });
    expect(parseOrThrow(batch, { operations: [{ data: { name: '\ud800' } }] })).toEqual({ operations: [{ data: { name: '\ud800' } }] });
  });

  it('walks a body nested 100,000 levels deep without overflowing the stack', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}"\\ud800"${'}'.repeat(100_000)}`);
    expect(details(z.custom(() => true), deep)).toHaveLength(1);
  });
});

/** What a parse throws, as `{code, details}` (null when it parses). */
function refusal(parse: () => unknown): { code: string; details: unknown } | null {
  try {
    parse();
    return null;
  } catch (error) {
    return { code: (error as ApiError).code, details: (error as ApiError).details };
  }
}

// issue 25: a path parameter's parse through zod was a fifth of an order read's own CPU.
describe('parseParams (a route\'s path parameters, parsed once per distinct value)', () => {
  const deliveryParams = z.strictObject({ delivery_id: id('delivery') });
  const valid = 'dlv_01JD0000000000000000000000';

  it('parses a set of values once while it is remembered', () => {
    let parses = 0;
    const counted = z.strictObject({ order_id: z.string().transform((s) => (parses++, s)) });
    expect(parseParams(counted, { order_id: 'ord_1' })).toEqual({ order_id: 'ord_1' });
    expect(parseParams(counted, { order_id: 'ord_1' })).toEqual({ order_id: 'ord_1' });
    expect(parses).toBe(1);
  });

  it('answers a different value for a different input', () => {
    const params = z.strictObject({ order_id: z.string() });
    expect(parseParams(params, { order_id: 'ord_1' })).toEqual({ order_id: 'ord_1' });
    expect(parseParams(params, { order_id: 'ord_2' })).toEqual({ order_id: 'ord_2' });
    // Another schema with the same values keeps its own answers.
    expect(parseParams(z.strictObject({ order_id: z.string().transform((s) => s.length) }), { order_id: 'ord_1' })).toEqual({ order_id: 5 });
  });

  it('gives each caller its own object', () => {
    const first = parseParams(deliveryParams, { delivery_id: valid }) as Record<string, unknown>;
    first.delivery_id = 'changed';
    expect(parseParams(deliveryParams, { delivery_id: valid })).toEqual({ delivery_id: valid });
  });

  it.each<[string, Record<string, string>]>([
    ['an invalid value after a valid one', { delivery_id: 'dlv_nope' }],
    ['a lone surrogate', { delivery_id: `${valid}\ud800` }],
    ['U+0000', { delivery_id: `${valid}\u0000` }],
    ['an unknown parameter', { delivery_id: valid, other: 'x' }],
  ])('refuses %s with the same 422 and details as parseOrThrow, every time', (_what, input) => {
    parseParams(deliveryParams, { delivery_id: valid });
    const expected = refusal(() => parseOrThrow(deliveryParams, input));
    expect(expected?.code).toBe('validation_failed');
    expect(refusal(() => parseParams(deliveryParams, input))).toEqual(expected);
    expect(refusal(() => parseParams(deliveryParams, input))).toEqual(expected);
  });

  it('parses every time an input of more than one parameter, or of another name', () => {
    let parses = 0;
    const counted = z.string().transform((s) => (parses++, s));
    const two = z.strictObject({ id: counted, action: z.string() });
    parseParams(two, { id: 'e1', action: 'pickup' });
    parseParams(two, { id: 'e1', action: 'pickup' });
    expect(parses).toBe(2);
    const one = z.strictObject({ order_id: counted });
    expect(parseParams(one, { order_id: 'x' })).toEqual({ order_id: 'x' });
    const other = { other_id: 'x' };
    expect(refusal(() => parseParams(one, other))).toEqual(refusal(() => parseOrThrow(one, other)));
    expect(refusal(() => parseParams(one, other))?.code).toBe('validation_failed');
  });

  it(`stays right past ${PARAMS_MEMO_SIZE} distinct values (the memo starts over)`, () => {
    const params = z.strictObject({ order_id: z.string() });
    for (let i = 0; i <= PARAMS_MEMO_SIZE * 2; i += 7) expect(parseParams(params, { order_id: `ord_${i}` })).toEqual({ order_id: `ord_${i}` });
  });
});
