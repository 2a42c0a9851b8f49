import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

// The zoo's HTTP side: a small raw API caller with its own retry policy (not the package's client,
// so that the zoo's ERPs are built differently from the reference integrator).

export interface Answer {
  status: number;
  // The API's JSON (anything for a test's purposes).
  body: any;
  retryAfter: number | null;
}

/**
 * How a write is retried after 429, 500, 502, 503 and 504:
 * - honour: the same Idempotency-Key, after Retry-After (or 1, 2, 4 s), as the spec asks;
 * - slow: the same key, after twice Retry-After (a cautious ERP);
 * - at_once: the same key, at once (broken: ignores Retry-After);
 * - new_key: after Retry-After but under a new key (broken: the effect could happen twice).
 */
export type RetryPolicy = 'honour' | 'slow' | 'at_once' | 'new_key';

const RETRIED = new Set([429, 500, 502, 503, 504]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Api {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
  /** Every answer this ERP got, newest last (the tests read what the ERP saw). */
  readonly answers: { method: string; path: string; status: number; code: string | null }[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly credential: string,
    private readonly retry: RetryPolicy = 'honour',
  ) {}

  async get(path: string): Promise<Answer> {
    return this.send('GET', path, undefined, null);
  }

  /** A write with an Idempotency-Key, retried by the policy (up to 5 attempts); the last answer. */
  async write(method: string, path: string, body?: unknown): Promise<Answer> {
    let key = `zoo-${randomUUID()}`;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.send(method, path, body, key);
      if (!RETRIED.has(answer.status) || attempt >= 5) return answer;
      const wait = (answer.retryAfter ?? 2 ** (attempt - 1)) * 1000;
      if (this.retry === 'honour') await sleep(wait);
      else if (this.retry === 'slow') await sleep(2 * wait);
      else if (this.retry === 'new_key') (key = `zoo-${randomUUID()}`), await sleep(wait);
      // at_once: straight again.
    }
  }

  private async send(method: string, path: string, body: unknown, key: string | null): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.credential}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key) headers['idempotency-key'] = key;
    const res = await request(`${this.baseUrl}${path}`, { method: method as 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: this.agent });
    const text = await res.body.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const after = res.headers['retry-after'];
    this.answers.push({ method, path, status: res.statusCode, code: parsed?.error?.code ?? null });
    return { status: res.statusCode, body: parsed, retryAfter: typeof after === 'string' ? Number(after) : null };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A new Api whose writes that fail are reported, not thrown: `ok` says whether it was 2xx. */
export const ok = (a: Answer) => a.status >= 200 && a.status < 300;
