import type { z } from 'zod';

const precise = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Marks a schema the API parses leniently (so that a later, finer step can answer each part on
 * its own) as described in the OpenAPI document by `documented`, a schema built from the same
 * contract schemas. Parsing is unchanged; only the document reads the mark.
 */
export function documentedAs<T extends z.ZodType>(lenient: T, documented: z.ZodType): T {
  precise.set(lenient, documented);
  return lenient;
}

/** The schema the document shows instead of `schema`, if it was marked with `documentedAs`. */
export function documentedSchemaOf(schema: unknown): z.ZodType | undefined {
  return schema && typeof schema === 'object' ? precise.get(schema as z.ZodType) : undefined;
}
