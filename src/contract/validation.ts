import { z } from 'zod';
import { ApiError, type FieldIssue } from './errors.js';

type Issue = z.core.$ZodIssue & { input?: unknown };

const KIND_ES: Record<string, string> = {
  string: 'un texto',
  number: 'un número',
  int: 'un número entero',
  boolean: 'verdadero o falso (true/false)',
  array: 'una lista',
  object: 'un objeto',
};

function fieldOf(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Turns one zod issue into the spec's `details` entries, in Spanish. */
function toFieldIssues(issue: Issue, prefix: string): FieldIssue[] {
  const field = [prefix, fieldOf(issue.path)].filter(Boolean).join('.');
  const missing = !('input' in issue) || issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: [field, key].filter(Boolean).join('.'),
        code: 'unknown_field',
        message: `El campo "${key}" no es parte de esta operación.`,
      }));
    case 'invalid_type':
      if (missing) return [{ field, code: 'required', message: 'El campo es obligatorio.' }];
      return [{ field, code: 'invalid_type', message: `Debe ser ${KIND_ES[issue.expected] ?? issue.expected}.` }];
    case 'too_big':
      if (issue.origin === 'string') return [{ field, code: 'too_long', message: `Debe tener como máximo ${issue.maximum} caracteres.` }];
      if (issue.origin === 'array') return [{ field, code: 'too_many', message: `Admite como máximo ${count(issue.maximum, 'elemento')}.` }];
      if (issue.inclusive === false) return [{ field, code: 'too_big', message: `Debe ser menor que ${issue.maximum}.` }];
      return [{ field, code: 'too_big', message: `Debe ser como máximo ${issue.maximum}.` }];
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? [{ field, code: 'required', message: 'El campo no puede estar vacío.' }]
          : [{ field, code: 'too_short', message: `Debe tener al menos ${issue.minimum} caracteres.` }];
      }
      if (issue.origin === 'array') return [{ field, code: 'too_few', message: `Requiere al menos ${count(issue.minimum, 'elemento')}.` }];
      if (issue.inclusive === false) return [{ field, code: 'too_small', message: `Debe ser mayor que ${issue.minimum}.` }];
      return [{ field, code: 'too_small', message: `Debe ser como mínimo ${issue.minimum}.` }];
    case 'invalid_value':
      if (missing) return [{ field, code: 'required', message: 'El campo es obligatorio.' }];
      return [{ field, code: 'invalid_value', message: `Valor no permitido; se acepta: ${issue.values.map(String).join(', ')}.` }];
    case 'invalid_format':
      return [{ field, code: 'invalid', message: formatMessage(issue.pattern ?? issue.format) }];
    case 'custom':
      return [{ field, code: (issue.params?.code as string) ?? 'invalid', message: issue.message }];
    case 'invalid_union':
      if (missing) return [{ field, code: 'required', message: 'El campo es obligatorio.' }];
      return [{ field, code: 'invalid', message: 'El valor no tiene un formato aceptado.' }];
    default:
      return [{ field, code: 'invalid', message: 'El valor no es válido.' }];
  }
}

const count = (n: number | bigint, noun: string) => `${n} ${noun}${Number(n) === 1 ? '' : 's'}`;

function formatMessage(pattern: string): string {
  // The code charset of external_id, snapshot_id and the like, with the pattern's own length bounds.
  const code = /\[A-Za-z0-9\._:-\]\{(\d+),(\d+)\}/.exec(pattern);
  if (code) return `Debe tener de ${code[1]} a ${code[2]} caracteres: letras, dígitos y . _ : -`;
  if (pattern.includes('A-Za-z0-9._:-')) return 'Solo admite letras, dígitos y . _ : -';
  if (pattern.includes('(0|[1-9]')) return 'Monto inválido: texto decimal con punto y hasta 2 decimales, sin separador de miles (ej. "15000.50").';
  if (pattern.includes('\\d{4}-')) return 'Fecha inválida: ISO 8601 con desplazamiento explícito (ej. 2026-11-22T10:30:00-03:00).';
  if (pattern === 'url') return 'Debe ser una URL http(s) válida.';
  return 'El valor no tiene el formato requerido.';
}

const REFINE_MESSAGES: Record<string, FieldIssue['message']> = {
  too_large: 'El monto es demasiado grande.',
  invalid_date: 'Fecha inválida.',
};

/** The spec's `details` for a failed parse, one entry per field problem. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldIssue[] {
  return issues.flatMap((issue) => {
    const out = toFieldIssues(issue as Issue, prefix);
    return out.map((d) => (REFINE_MESSAGES[d.message] ? { ...d, code: 'invalid', message: REFINE_MESSAGES[d.message] } : d));
  });
}

// With the `u` flag a pair is one code point: only a surrogate without its other half is in `Cs`.
const LONE_SURROGATE = /\p{Cs}/u;
const ILL_FORMED: FieldIssue['message'] = 'El texto no es UTF-8 válido: contiene un sustituto UTF-16 sin su par.';
// U+0000 is valid UTF-8, but no text of the API has a use for it and a PostgreSQL text cannot hold
// it: refused alike on every storage (docs/openapi.md, Decisions).
const NUL = '\u0000';
const HAS_NUL: FieldIssue['message'] = 'El texto no puede contener el carácter nulo (U+0000).';

/**
 * Whether a schema is of zod's class `name`: what `instanceof z.ZodOptional` asks (zod answers it from
 * the instance's traits), read directly. This runs for every value of every request body, and an
 * `instanceof` through zod's namespace and its Symbol.hasInstance cost most of the walk.
 */
const isA = (schema: z.ZodType, name: string): boolean => schema._zod.traits.has(name);

function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (isA(s, 'ZodOptional') || isA(s, 'ZodNullable') || isA(s, 'ZodDefault')) s = (s as z.ZodOptional).unwrap() as z.ZodType;
  return s;
}

/** The schema of a child value, where the parent's schema says it (objects, arrays). */
function childSchema(schema: z.ZodType | undefined, key: string | number): z.ZodType | undefined {
  const s = schema && unwrapped(schema);
  if (s === undefined) return undefined;
  if (isA(s, 'ZodObject')) {
    const shape = (s as z.ZodObject).shape;
    return typeof key === 'string' && Object.hasOwn(shape, key) ? (shape[key] as z.ZodType) : undefined;
  }
  if (isA(s, 'ZodArray')) return (s as z.ZodArray).element as z.ZodType;
  return undefined;
}

/**
 * spec: Conventions — text is UTF-8. A JSON escape can still carry half of a UTF-16 surrogate pair
 * (`"\ud800"`), which no UTF-8 text holds (it was stored as three U+FFFD): every string of the input,
 * at any depth, must be well formed, and without U+0000 (no storage keeps it alike). One `invalid` detail per such string, by its dotted path.
 * A value the schema leaves `unknown` is skipped: a finer step reads it (a batch operation fails on
 * its own, not the whole batch). Iterative, so a deeply nested body costs a loop, never the stack.
 */
export function illFormedTextDetails(input: unknown, schema?: z.ZodType, prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  const stack: [unknown, string, z.ZodType | undefined][] = [[input, prefix, schema]];
  const at = (field: string, key: string | number) => (field ? `${field}.${key}` : String(key));
  while (stack.length > 0 && out.length < 100) {
    const [value, field, s] = stack.pop()!;
    if (s && isA(unwrapped(s), 'ZodUnknown')) continue;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) out.push({ field, code: 'invalid', message: ILL_FORMED });
      else if (value.includes(NUL)) out.push({ field, code: 'invalid', message: HAS_NUL });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], at(field, i), childSchema(s, i)]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], at(field, entries[i]![0]), childSchema(s, entries[i]![0])]);
    }
  }
  return out;
}

/**
 * Everything the contract says about an input: the schema's `details`, then each ill-formed text
 * not already named. Empty when the input is valid. The emulator (parseOrThrow) and the proxy's
 * checks both use it.
 */
export function contractDetails(schema: z.ZodType, input: unknown, prefix = ''): { details: FieldIssue[]; data?: unknown } {
  const result = schema.safeParse(input, { reportInput: true });
  const text = illFormedTextDetails(input, schema, prefix);
  if (result.success && text.length === 0) return { details: [], data: result.data };
  const details = result.success ? [] : issuesToDetails(result.error.issues, prefix);
  const named = new Set(details.map((d) => d.field));
  return { details: [...details, ...text.filter((d) => !named.has(d.field))] };
}

/** Parses with a contract schema or throws 422 `validation_failed` with `details` per field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.output<T> {
  const { details, data } = contractDetails(schema, input, prefix);
  if (details.length === 0) return data as z.output<T>;
  throw ApiError.validation(details);
}

/** How many distinct parameter values a schema's memo keeps before it starts over. */
export const PARAMS_MEMO_SIZE = 1024;

/** A schema's parses of one parameter, by its value (`name`: the parameter's, the first one parsed). */
interface ParamsMemo {
  name: string;
  parsed: Map<string, Record<string, unknown>>;
}
const paramsMemos = new WeakMap<z.ZodType, ParamsMemo>();

/**
 * A route's path parameters (an object of strings, as the router gives them) parsed with the
 * contract's schema, as parseOrThrow does. Integrations read the same ids again and again (an order
 * polled until it changes), and zod's parse of one string was a fifth of a read's own CPU: a valid
 * value of a route's one parameter is parsed once, and its parse answers again while it is in the
 * schema's memo. Only what parsed is kept: an invalid value is parsed (and refused) every time, with
 * the same details; so is any input but one string under the memo's name (the one route with two
 * parameters is a write).
 */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const name = onlyName(params);
  const value = name === null ? undefined : (params as Record<string, unknown>)[name];
  if (typeof value !== 'string') return parseOrThrow(schema, params);
  let memo = paramsMemos.get(schema);
  if (memo === undefined) paramsMemos.set(schema, (memo = { name: name!, parsed: new Map() }));
  if (memo.name !== name) return parseOrThrow(schema, params);
  const known = memo.parsed.get(value);
  // A copy: the handler gets its own object, as from a parse.
  if (known !== undefined) return { ...known } as z.output<T>;
  const parsed = parseOrThrow(schema, params) as Record<string, unknown>;
  if (memo.parsed.size >= PARAMS_MEMO_SIZE) memo.parsed.clear();
  memo.parsed.set(value, { ...parsed });
  return parsed as z.output<T>;
}

/** The name of an object's one own property; null for anything else. */
function onlyName(params: unknown): string | null {
  if (params === null || typeof params !== 'object') return null;
  let only: string | null = null;
  for (const name in params) {
    if (only !== null || !Object.hasOwn(params, name)) return null;
    only = name;
  }
  return only;
}
