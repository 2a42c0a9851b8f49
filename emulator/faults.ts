import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../src/contract/errors.js';
import type { ControlFault } from '../src/contract/control.js';

/** A fault as the control API shows it: the code and Retry-After already resolved. */
export interface FaultView {
  method: string | null;
  path: string;
  status: number | null;
  code: string | null;
  retry_after: number | null;
  delay_ms: number;
  /** Uses left. */
  times: number;
}

interface Fault extends FaultView {
  pattern: RegExp;
}

/** `*` matches within one path segment, `**` across segments (DESIGN: globs match the full path). */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * DESIGN: `code` defaults to the spec's code for the status — the first row of the Errors table with
 * that status (429 rate_limited, 500 internal_error, 503 maintenance, 404 not_found, …); a status the
 * table does not list gets `internal_error` (5xx) or `validation_failed` (4xx).
 */
export function defaultFaultCode(status: number): ErrorCode {
  const listed = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).find((code) => ERROR_CATALOGUE[code].status === status);
  return listed ?? (status >= 500 ? 'internal_error' : 'validation_failed');
}

/** DESIGN: 429 carries Retry-After 1 unless told; so does 503 ("see Retry-After" in the spec). */
function defaultRetryAfter(status: number): number | null {
  return status === 429 || status === 503 ? 1 : null;
}

/** Injected failures for retry testing: the next matching API calls answer as told, before running. */
export class Faults {
  private list: Fault[] = [];

  add(spec: ControlFault): FaultView {
    const status = spec.status ?? null;
    const fault: Fault = {
      method: spec.method ?? null,
      path: spec.path,
      status,
      code: status === null ? null : (spec.code ?? defaultFaultCode(status)),
      retry_after: status === null ? null : (spec.retry_after ?? defaultRetryAfter(status)),
      delay_ms: spec.delay_ms ?? 0,
      times: spec.times ?? 1,
      pattern: globToRegExp(spec.path),
    };
    this.list.push(fault);
    return view(fault);
  }

  clear(): number {
    const n = this.list.length;
    this.list = [];
    return n;
  }

  get active(): FaultView[] {
    return this.list.map(view);
  }

  /** Takes one use of the first fault matching the call, if any. */
  take(method: string, path: string): { delayMs: number; error?: ApiError } | undefined {
    const fault = this.list.find((f) => (f.method === null || f.method === method.toUpperCase()) && f.pattern.test(path));
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.list = this.list.filter((f) => f !== fault);
    if (fault.status === null) return { delayMs: fault.delay_ms };
    return { delayMs: fault.delay_ms, error: faultError(fault) };
  }
}

function view({ pattern: _pattern, ...fault }: Fault): FaultView {
  return { ...fault };
}

/** The error the fault answers with: the spec's body, the status and code asked for. */
function faultError(fault: Fault): ApiError {
  const status = fault.status!;
  const code = fault.code!;
  const known = code in ERROR_CATALOGUE ? (code as ErrorCode) : defaultFaultCode(status);
  const error = new ApiError(known, `${ERROR_CATALOGUE[known].message} (falla inyectada por el emulador)`);
  // A fault may ask for any status and code, also ones the catalogue pairs differently.
  Object.assign(error, { status, code });
  if (fault.retry_after !== null) error.withHeaders({ 'Retry-After': String(fault.retry_after) });
  return error;
}
