import { z } from 'zod';
import * as contract from './index.js';
import { documentedSchemaOf } from './documented.js';
import { errorBody, fieldIssue } from './error-body.js';

export type JsonSchema = Record<string, unknown>;
export type Side = 'request' | 'response';

export const SCHEMA_REF = '#/components/schemas/';

export const pascalCase = (name: string) => name.replace(/(^|[_\-.])([a-zA-Z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/** Every `$ref` to a component schema inside a JSON value. */
export function componentRefs(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) componentRefs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF)) out.add(v.slice(SCHEMA_REF.length));
      else componentRefs(v, out);
    }
  }
  return out;
}

function closure(roots: Iterable<string>, schemas: Record<string, JsonSchema>): Set<string> {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id) || !schemas[id]) continue;
    seen.add(id);
    todo.push(...componentRefs(schemas[id]));
  }
  return seen;
}

function renameRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, names));
  if (!value || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF)) {
      out[k] = SCHEMA_REF + (names.get(v.slice(SCHEMA_REF.length)) ?? v.slice(SCHEMA_REF.length));
    } else out[k] = renameRefs(v, names);
  }
  return out;
}

const SHARED = '__shared';

/**
 * One zod → JSON Schema conversion of the whole registry with zod's own `z.toJSONSchema`: a schema
 * registered under an id becomes a component and every use of it a `$ref`. Requests are read as
 * zod's input type (defaults optional, query text), responses as its output type.
 */
function convert(registry: z.core.$ZodRegistry<{ id?: string }>, io: 'input' | 'output', idOf: (schema: z.ZodType) => string | undefined): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => SCHEMA_REF + id,
    override: ({ zodSchema, jsonSchema }) => {
      // spec: Conventions — clients ignore unknown response fields, so responses never forbid them.
      if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      // A schema parsed leniently but documented precisely (`documentedAs`) points at the precise one.
      const documented = documentedSchemaOf(zodSchema);
      const documentedId = documented && idOf(documented);
      if (documentedId) {
        for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
        jsonSchema.$ref = SCHEMA_REF + documentedId;
      }
    },
  });
  const out: Record<string, JsonSchema> = {};
  const shared = (schemas[SHARED] as JsonSchema | undefined)?.$defs as Record<string, JsonSchema> | undefined;
  for (const [id, schema] of Object.entries({ ...shared, ...schemas })) {
    if (id === SHARED) continue;
    const { $schema: _s, $id: _i, ...rest } = schema as JsonSchema;
    out[id] = rest;
  }
  // Anonymous schemas zod had to extract (cycles, global `id` metadata) become components too.
  return JSON.parse(JSON.stringify(out).replaceAll(`"${SCHEMA_REF}${SHARED}#/$defs/`, `"${SCHEMA_REF}`));
}

export interface ConvertedSchemas {
  /** The component name and JSON Schema of a registered schema as seen from one side. */
  lookup(side: Side, id: string): { name: string; schema: JsonSchema };
  /** Every component reachable from a request or a response, under its final name. */
  components: Record<string, JsonSchema>;
}

/**
 * The contract's zod schemas as OpenAPI components. Every schema the contract exports by name is a
 * component named after it (`productInput` → `ProductInput`); a schema used by an operation without
 * a name gets the operation's (`GetMeResponse`). A schema read differently by requests and responses
 * (defaults, transforms) gets a second component with `Input` appended.
 */
export class SchemaRegistry {
  private readonly registry = z.registry<{ id?: string }>();
  private readonly ids = new Map<z.ZodType, string>();
  private readonly taken = new Set<string>();
  private readonly roots: Record<Side, Set<string>> = { request: new Set(), response: new Set() };

  constructor() {
    const named = { ...contract, fieldIssue, errorBody } as Record<string, unknown>;
    for (const [name, value] of Object.entries(named)) if (value instanceof z.ZodType) this.register(value, pascalCase(name));
  }

  /** Registers a schema an operation uses; returns its id. */
  use(schema: z.ZodType, side: Side, fallbackId: string): string {
    const id = this.register(schema, fallbackId);
    this.roots[side].add(id);
    return id;
  }

  convert(): ConvertedSchemas {
    const idOf = (schema: z.ZodType) => this.ids.get(schema);
    const input = convert(this.registry, 'input', idOf);
    const output = convert(this.registry, 'output', idOf);
    const inRequests = closure(this.roots.request, input);
    const inResponses = closure(this.roots.response, output);
    const renames = new Map<string, string>();
    for (const id of inRequests) {
      if (inResponses.has(id) && JSON.stringify(input[id]) !== JSON.stringify(output[id])) renames.set(id, this.unique(`${id}Input`));
    }
    const components: Record<string, JsonSchema> = {};
    for (const id of inResponses) components[id] = output[id];
    for (const id of inRequests) components[renames.get(id) ?? id] = renameRefs(input[id], renames) as JsonSchema;
    return {
      components,
      lookup: (side, id) => {
        const name = side === 'request' ? renames.get(id) ?? id : id;
        const schema = side === 'request' ? (renameRefs(input[id], renames) as JsonSchema) : output[id];
        if (!schema) throw new Error(`schema ${id} was not converted`);
        return { name, schema };
      },
    };
  }

  private register(schema: z.ZodType, wanted: string): string {
    const existing = this.ids.get(schema);
    if (existing) return existing;
    const id = this.unique(wanted);
    this.ids.set(schema, id);
    this.taken.add(id);
    this.registry.add(schema, { id });
    return id;
  }

  private unique(wanted: string): string {
    let id = wanted;
    for (let n = 2; this.taken.has(id); n++) id = `${wanted}${n}`;
    this.taken.add(id);
    return id;
  }
}
