import type { Evidence } from '../types.js';
import type { CheckArea, CheckStatus } from '../types.js';

export const STATUS_LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', pending: 'PENDING' };

export const AREA_TITLE: Record<CheckArea, string> = {
  setup: 'Connection',
  catalog: 'Catalog',
  orders: 'Orders',
  webhooks: 'Webhooks',
  resilience: 'Resilience',
};

/** One line per piece of evidence: "GET /me → 200 (12 ms, req_…) expected 200". */
export function evidenceLine(e: Evidence): string {
  const parts: string[] = [e.ok ? '[ok]' : '[x]', e.step];
  const call = [e.method, e.path].filter(Boolean).join(' ');
  if (call && call !== e.step) parts.push(`(${call})`);
  if (e.status !== undefined) parts.push(`→ ${e.status === null ? 'no answer' : e.status}`);
  const extra = [
    e.duration_ms != null ? `${e.duration_ms} ms` : null,
    e.request_id ? e.request_id : null,
    e.idempotency_key ? `key ${e.idempotency_key}` : null,
  ].filter(Boolean);
  if (extra.length) parts.push(`[${extra.join(', ')}]`);
  if (e.expected !== undefined) parts.push(`expected: ${e.expected}`);
  if (e.actual !== undefined) parts.push(`got: ${e.actual}`);
  return parts.join(' ');
}
