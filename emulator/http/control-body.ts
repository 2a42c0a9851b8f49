import type { z } from 'zod';
import { parseOrThrow } from '../../src/contract/validation.js';

/** A control body checked with its contract schema; no body reads as `{}` (every field optional or required by the schema). */
export function controlBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  return parseOrThrow(schema, body ?? {});
}
