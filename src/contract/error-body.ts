import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

// spec: Errors — one field-level problem of a validation error, `field` as a dotted path.
export const fieldIssue = z.object({
  field: z.string().meta({ example: 'option_groups.0.options.1.price' }),
  code: z.string().meta({ example: 'invalid' }),
  message: z.string(),
});

// spec: Errors — error body shape; `details` is a list for validation, an object for state errors (DESIGN).
export const errorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES as [string, ...string[]]).meta({ description: 'Código para el manejo automático' }),
    message: z.string().meta({ description: 'Mensaje en español, apto para mostrar' }),
    details: z
      .union([z.array(fieldIssue), z.record(z.string(), z.unknown())])
      .optional()
      .meta({ description: 'Lista por campo en errores de validación; objeto en errores de estado (`current_status`, `expected_part`)' }),
    request_id: z.string().meta({ example: 'req_01JD0000000000000000000000' }),
  }),
});
