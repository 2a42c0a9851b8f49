import type { z } from 'zod';
import { ApiError } from '../../src/contract/errors.js';
import type { FieldIssue } from '../../src/contract/errors.js';
import { contractDetails } from '../../src/contract/validation.js';

/**
 * A request's query checked with its endpoint's schema once: by the route's prefetch (the read a
 * server database makes with the admission needs the parsed query before the handler runs), then
 * taken as is by the route (issue 25: the products and feed queries were parsed twice). Keyed by
 * the request's query object, which lives as long as the request.
 */
const checked = new WeakMap<object, { schema: z.ZodType; details: FieldIssue[]; data?: unknown }>();

function check(schema: z.ZodType, query: unknown): { details: FieldIssue[]; data?: unknown } {
  const keyed = query !== null && typeof query === 'object';
  const kept = keyed ? checked.get(query) : undefined;
  if (kept && kept.schema === schema) return kept;
  const result = contractDetails(schema, query);
  if (keyed) checked.set(query, { schema, ...result });
  return result;
}

/** The query parsed for a prefetch: undefined when it is not valid (the route then answers its error). */
export function prefetchQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> | undefined {
  const { details, data } = check(schema, query);
  return details.length === 0 ? (data as z.output<S>) : undefined;
}

/** The route's query: as its prefetch parsed it, else parsed now; 422 `validation_failed` when it is not valid. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const { details, data } = check(schema, query);
  if (details.length === 0) return data as z.output<S>;
  throw ApiError.validation(details);
}
