import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors.js';

// spec: Errors — one field-level problem of a validation error, `field` as a dotted path.
export const fieldIssue = z.object({
  field: z.string().meta({ example: 'option_groups.0.options.1.price' }),
  code: z.string().meta({ example: 'invalid' }),
  message: z.string(),
});

// DESIGN: `details` is an object for state errors. spec: States 5 and Full snapshot rules 4.
export const invalidStatusTransitionDetails = z.object({
  current_status: z.string().meta({ description: 'Estado actual del pedido (o de la entrega, en /entregas)', example: 'completed' }),
});
export const snapshotOutOfOrderDetails = z.object({
  expected_part: z.int().min(1).meta({ description: 'La parte que se espera a continuación' }),
});
/** The code the order was already confirmed with (spec: Import confirmation). */
export const externalIdConflictDetails = z.object({ external_id: z.string() });

const code = <C extends ErrorCode>(value: C) => z.literal(value).meta({ description: 'Código para el manejo automático' });
const message = z.string().meta({ description: 'Mensaje en español, apto para mostrar' });

/** The codes whose `details` has a shape of its own; every other code carries none. */
const DETAILED = ['validation_failed', 'invalid_status_transition', 'snapshot_out_of_order', 'external_id_conflict'] as const;
const PLAIN = ERROR_CODES.filter((c) => !(DETAILED as readonly string[]).includes(c)) as [ErrorCode, ...ErrorCode[]];

/**
 * `{code, message, details}` told apart by `code`, so that a generated client narrows `details`:
 * the list per field of `validation_failed`, the objects of the state errors. `details` stays
 * optional: an injected fault (docs/emulator.md, Faults) answers any code without it.
 */
function errorShapes<Extra extends z.core.$ZodLooseShape>(extra: Extra) {
  return z.discriminatedUnion('code', [
    z.object({ code: code('validation_failed'), message, details: z.array(fieldIssue).optional(), ...extra }),
    z.object({ code: code('invalid_status_transition'), message, details: invalidStatusTransitionDetails.optional(), ...extra }),
    z.object({ code: code('snapshot_out_of_order'), message, details: snapshotOutOfOrderDetails.optional(), ...extra }),
    z.object({ code: code('external_id_conflict'), message, details: externalIdConflictDetails.optional(), ...extra }),
    z.object({ code: z.enum(PLAIN).meta({ description: 'Código para el manejo automático' }), message, ...extra }),
  ]);
}

// spec: Errors — error body shape; `details` is a list for validation, an object for state errors (DESIGN).
export const errorBody = z.object({
  error: errorShapes({ request_id: z.string().meta({ example: 'req_01JD0000000000000000000000' }) }),
});

/**
 * spec: Batch response — a failed operation's `error`; only validation carries `details` there, with
 * fields relative to the operation (`data.price`).
 */
export const batchOperationError = z.object({
  code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Código para el manejo automático' }),
  message,
  details: z.array(fieldIssue).optional().meta({ description: 'Lista por campo, en errores de validación' }),
});
