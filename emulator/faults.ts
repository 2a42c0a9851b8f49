import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../src/contract/errors.js';

export interface FaultSpec {
  method?: string;
  path: string;
  status?: number;
  code?: string;
  retry_after?: number;
  delay_ms?: number;
  times?: number;
}

interface Fault extends FaultSpec {
  pattern: RegExp;
  remaining: number;
}

/** `*` matches one path segment, `**` any number of them (DESIGN: globs match the full path). */
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

const DEFAULT_CODE: Record<number, ErrorCode> = { 429: 'rate_limited', 500: 'internal_error', 503: 'maintenance' };

/** Injected failures for retry testing: the next matching API calls answer as told, before running. */
export class Faults {
  private list: Fault[] = [];

  add(spec: FaultSpec): void {
    this.list.push({ ...spec, pattern: globToRegExp(spec.path), remaining: spec.times ?? 1 });
  }

  clear(): void {
    this.list = [];
  }

  get active(): FaultSpec[] {
    return this.list.map(({ pattern: _p, remaining, ...spec }) => ({ ...spec, times: remaining }));
  }

  /** Takes one use of the first fault matching the call, if any. */
  take(method: string, path: string): { delayMs: number; error?: ApiError } | undefined {
    const fault = this.list.find((f) => (!f.method || f.method.toUpperCase() === method) && f.pattern.test(path));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.list = this.list.filter((f) => f !== fault);
    if (fault.status === undefined) return { delayMs: fault.delay_ms ?? 0 };
    return { delayMs: fault.delay_ms ?? 0, error: faultError(fault) };
  }
}

function faultError(fault: Fault): ApiError {
  const status = fault.status!;
  const known = (fault.code ?? DEFAULT_CODE[status]) as ErrorCode | undefined;
  const code: ErrorCode = known && known in ERROR_CATALOGUE ? known : status >= 500 ? 'internal_error' : 'validation_failed';
  const error = new ApiError(code, `${ERROR_CATALOGUE[code].message} (falla inyectada por el emulador)`);
  (error as { status: number }).status = status;
  const retryAfter = fault.retry_after ?? (status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) error.withHeaders({ 'Retry-After': String(retryAfter) });
  if (fault.code && !(fault.code in ERROR_CATALOGUE)) (error as { code: string }).code = fault.code;
  return error;
}
