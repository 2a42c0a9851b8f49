import { ApiError } from '../../src/client/errors.js';
import type { CallOptions, ResponseInfo } from '../../src/client/types.js';
import type { Evidence } from '../types.js';

/** A call's answers as the client reported them (one per attempt), with the real time each came. */
export interface Answer extends ResponseInfo {
  at: number;
}

export type Outcome<T> = { ok: true; value: T; answers: Answer[] } | { ok: false; error: ApiError; answers: Answer[] };

/**
 * The evidence of one check: every HTTP answer of its calls (from the client's per-call metadata:
 * status, request id, timing, idempotency key), each step marked as it was judged.
 */
export class EvidenceLog {
  readonly items: Evidence[] = [];

  /** `signal` (the run's) cancels calls under way when the run is interrupted or times out. */
  constructor(private readonly signal?: AbortSignal) {}

  /** Runs one call, recording each attempt's answer; never throws an ApiError (it is returned). */
  async call<T>(step: string, fn: (options: CallOptions) => Promise<T>, extra: CallOptions = {}): Promise<Outcome<T>> {
    const answers: Answer[] = [];
    let lastItem: Evidence | undefined;
    const onResponse = (info: ResponseInfo) => {
      answers.push({ ...info, at: Date.now() });
      this.items.push((lastItem = {
        step: answers.length > 1 ? `${step} (attempt ${info.attempt})` : step,
        ok: info.status >= 200 && info.status < 300,
        method: info.method,
        path: info.path,
        status: info.status,
        request_id: info.requestId,
        duration_ms: Math.round(info.durationMs),
        idempotency_key: info.idempotencyKey,
      }));
    };
    try {
      return { ok: true, value: await fn({ signal: this.signal, ...extra, onResponse }), answers };
    } catch (error) {
      const apiError = toApiError(error);
      if (answers.length === 0 || apiError.status === 0) {
        this.items.push({ step, ok: false, status: null, actual: `${apiError.code}: ${apiError.message}` });
      } else if (lastItem?.ok) {
        // A 2xx whose body is not the API's (garbage, cut short): the answer came, the call failed.
        Object.assign(lastItem, { ok: false, actual: `${apiError.status} ${apiError.code}: ${apiError.message}` });
      }
      return { ok: false, error: apiError, answers };
    }
  }

  /** Marks the last recorded step with what was expected and what came. */
  judge(ok: boolean, expected: string, actual: string): boolean {
    const last = this.items[this.items.length - 1];
    if (last) Object.assign(last, { ok, expected, actual });
    return ok;
  }

  /** A step without an HTTP call of its own (a receiver's answer, a count). */
  note(step: string, ok: boolean, expected: string, actual: string, more: Partial<Evidence> = {}): boolean {
    this.items.push({ step, ok, expected, actual, ...more });
    return ok;
  }
}

/** Anything thrown by a call as an ApiError (garbage answers and bugs become a readable failure). */
function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError({ status: 0, code: 'client_error', message });
}

/** "409 external_id_conflict (req_…)" */
export function describeError(error: ApiError): string {
  return error.status === 0 ? `${error.code}: ${error.message}` : `${error.status} ${error.code}`;
}
