import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';

// The document's own schemas as a validator (ajv, JSON Schema 2020-12 with the formats asserted) and
// as fast-check arbitraries, for the subset of JSON Schema the generated document uses.

type Schema = Record<string, any>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Validates values against any node of the document, named by its JSON pointer. */
export class DocumentValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly doc: Schema) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components, paths: doc.paths }, 'doc');
  }

  at(pointer: string): ValidateFunction {
    let validate = this.cache.get(pointer);
    if (!validate) this.cache.set(pointer, (validate = this.ajv.compile({ $ref: `doc#${pointer}` })));
    return validate;
  }

  node(pointer: string): Schema {
    return pointer
      .split('/')
      .slice(1)
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((n, k) => n[k], this.doc as any);
  }
}

const RFC3339_OFFSETS = ['Z', '-03:00', '-04:00', '+00:00', '+05:30', '-23:59', '+14:00'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A date-time of RFC 3339 with an offset, seconds and sometimes a fraction. */
const dateTime = fc
  .record({
    ms: fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
    offset: fc.constantFrom(...RFC3339_OFFSETS),
    fraction: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
  })
  .map(({ ms, offset, fraction }) => {
    const d = new Date(ms);
    const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    return `${base}${fraction ? `.${String(d.getUTCMilliseconds()).padEnd(fraction, '0').slice(0, fraction)}` : ''}${offset}`;
  });

/**
 * URLs as integrators write them: public https hosts and the loopback receivers the emulator takes.
 * Made at the first draw of a `uri`: fast-check's web arbitraries build a table of every code point
 * the first time (~0.9 s of CPU in each test process), and most files that import this one only validate.
 */
let urls: fc.Arbitrary<string> | undefined;
const url = (): fc.Arbitrary<string> =>
  (urls ??= fc.oneof(
    fc.webUrl({ validSchemes: ['https', 'http'], withQueryParameters: true }),
    fc.tuple(fc.constantFrom('http', 'https'), fc.constantFrom('localhost', '127.0.0.1', '[::1]', '127.1.2.3'), fc.integer({ min: 1, max: 65535 }), fc.webPath())
      .map(([scheme, host, port, path]) => `${scheme}://${host}:${port}${path}`),
  ));

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min(s.maxLength ?? 40, 40);
  const minLength = s.minLength ?? 0;
  const options: fc.Arbitrary<string>[] = [];
  if (s.format === 'date-time') options.push(dateTime);
  if (s.format === 'uri') options.push(url());
  if (s.pattern && s.format === undefined) {
    try {
      options.push(fc.stringMatching(new RegExp(s.pattern)));
    } catch {
      /* a pattern fast-check cannot draw from: the format's generator or plain text below */
    }
  }
  if (options.length === 0) {
    options.push(fc.string({ minLength, maxLength }), fc.string({ unit: 'grapheme', minLength, maxLength }));
  }
  return fc.oneof(...options);
}

/**
 * An arbitrary of the values the document allows at `pointer`: drawn from the node's keywords, then
 * kept only if the document's validator accepts them (that covers `if`/`then`, `dependentRequired`,
 * `anyOf` of `required`, `not`, `oneOf` exclusivity and formats).
 */
export function arbitraryAt(v: DocumentValidator, pointer: string, depth = 0): fc.Arbitrary<unknown> {
  const s = v.node(pointer);
  const valid = v.at(pointer);
  return draw(v, s, pointer, depth).filter((value) => valid(value) as boolean);
}

function draw(v: DocumentValidator, s: Schema, pointer: string, depth: number): fc.Arbitrary<unknown> {
  if (typeof s.$ref === 'string') return arbitraryAt(v, s.$ref.slice(1), depth);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key]) && s.type === undefined) {
      return fc.oneof(...s[key].map((_: Schema, i: number) => arbitraryAt(v, `${pointer}/${key}/${i}`, depth)));
    }
  }
  switch (s.type) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1e9, Number.MIN_SAFE_INTEGER), max: Math.min(s.maximum ?? 1e9, Number.MAX_SAFE_INTEGER) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const maxLength = Math.min(s.maxItems ?? 4, depth > 1 ? 2 : 4);
      return fc.array(arbitraryAt(v, `${pointer}/items`, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.max(maxLength, s.minItems ?? 0) });
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(
        Object.keys(properties).map((key) => [key, arbitraryAt(v, `${pointer}/properties/${escape(key)}`, depth + 1)]),
      );
      return fc.record(model, { requiredKeys: (s.required ?? []) as string[] });
    }
    default:
      throw new Error(`no arbitrary for the schema at ${pointer}: ${JSON.stringify(s).slice(0, 200)}`);
  }
}

/** The pointer of an operation's request body schema, or null when it takes none. */
export function bodyPointer(path: string, method: string, op: Schema): string | null {
  return op.requestBody ? `/paths/${escape(path)}/${method}/requestBody/content/application~1json/schema` : null;
}

/** The pointer of a parameter's schema. */
export function parameterPointer(path: string, method: string, index: number): string {
  return `/paths/${escape(path)}/${method}/parameters/${index}/schema`;
}
