import type { z } from 'zod';
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

/** Parses with a contract schema or throws 422 `validation_failed` with `details` per field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw ApiError.validation(issuesToDetails(result.error.issues, prefix));
}
