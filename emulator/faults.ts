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
  matches: (path: string) => boolean;
}

// A glob's steps: a character (its UTF-16 code), or one of these wildcards.
const ONE = -1; // `?`: one character of a segment
const STAR = -2; // `*`: any run within a segment
const ANY = -3; // `**`: any run, across segments
const SLASH = 0x2f;

function globSteps(glob: string): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    let step = glob.charCodeAt(i);
    if (glob[i] === '*' && glob[i + 1] === '*') {
      step = ANY;
      i++;
    } else if (glob[i] === '*') step = STAR;
    else if (glob[i] === '?') step = ONE;
    // A run of wildcards is one, the widest of them (`***`, `*` beside `**`).
    const last = out.at(-1);
    if ((step === STAR || step === ANY) && (last === STAR || last === ANY)) out[out.length - 1] = Math.min(step, last);
    else out.push(step);
  }
  return Int32Array.from(out);
}

/**
 * `*` matches within one path segment, `**` across segments, `?` one character of a segment
 * (DESIGN: globs match the full path). Matched by walking the path once while keeping the set of
 * glob positions reached (an NFA, no backtracking): at most path length × glob length steps, so a
 * crafted glob (`/**a**a**…**!`) costs microseconds per request where a regular expression took
 * seconds, blocking every request.
 */
export function globMatcher(glob: string): (path: string) => boolean {
  if (!/[*?]/.test(glob)) return (path) => path === glob;
  const steps = globSteps(glob);
  const m = steps.length;
  // A wildcard also matches nothing: reaching it reaches the step after it.
  const close = (set: Uint8Array) => {
    for (let i = 0; i < m; i++) if (set[i] && (steps[i] === STAR || steps[i] === ANY)) set[i + 1] = 1;
  };
  return (path) => {
    let now = new Uint8Array(m + 1);
    let next = new Uint8Array(m + 1);
    now[0] = 1;
    close(now);
    for (let p = 0; p < path.length; p++) {
      const c = path.charCodeAt(p);
      next.fill(0);
      let alive = false;
      for (let i = 0; i < m; i++) {
        if (!now[i]) continue;
        const step = steps[i]!;
        if (step === ANY || (step === STAR && c !== SLASH)) next[i] = 1;
        else if (step === c || (step === ONE && c !== SLASH)) next[i + 1] = 1;
        else continue;
        alive = true;
      }
      if (!alive) return false;
      close(next);
      [now, next] = [next, now];
    }
    return now[m] === 1;
  };
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
      matches: globMatcher(spec.path),
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

  /** Takes one use of the first fault matching the call, if any, and answers it (`times` left after this use). */
  take(method: string, path: string): FaultView | undefined {
    // Every API request asks; almost always none is armed.
    if (this.list.length === 0) return undefined;
    const fault = this.list.find((f) => (f.method === null || f.method === method.toUpperCase()) && f.matches(path));
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.list = this.list.filter((f) => f !== fault);
    return view(fault);
  }
}

function view({ matches: _matches, ...fault }: Fault): FaultView {
  return { ...fault };
}

/** What a fault does to the call it takes: a delay, then its error (none: the call runs after the delay). */
export interface TakenFault {
  delayMs: number;
  error?: ApiError;
}

export function takenFault(fault: FaultView): TakenFault {
  return fault.status === null ? { delayMs: fault.delay_ms } : { delayMs: fault.delay_ms, error: faultError(fault) };
}

/** The error the fault answers with: the spec's body, the status and code asked for. */
function faultError(fault: FaultView): ApiError {
  const status = fault.status!;
  const code = fault.code!;
  const known = code in ERROR_CATALOGUE ? (code as ErrorCode) : defaultFaultCode(status);
  const error = new ApiError(known, `${ERROR_CATALOGUE[known].message} (falla inyectada por el emulador)`);
  // A fault may ask for any status and code, also ones the catalogue pairs differently.
  Object.assign(error, { status, code });
  if (fault.retry_after !== null) error.withHeaders({ 'Retry-After': String(fault.retry_after) });
  return error;
}
