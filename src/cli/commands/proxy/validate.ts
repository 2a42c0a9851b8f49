import type { z } from 'zod';
import { errorBody } from '../../../contract/error-body.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../contract/limits.js';
import { matchEndpoint, type MatchedEndpoint } from '../../../contract/route-match.js';
import { contractDetails, issuesToDetails } from '../../../contract/validation.js';
import { redactSecrets } from '../../../logging/redact.js';

/** One broken rule of the spec seen in an exchange, with where the rule is written. */
export interface Violation {
  rule: string;
  /** Where in the spec: `Errors — Idempotency rules 1`. */
  spec: string;
  message: string;
  field?: string;
}

export interface RequestFacts {
  method: string;
  /** Relative to the base address: `/orders/ord_…/ack`. */
  path: string;
  query: URLSearchParams;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  /** The raw body, or undefined when there was none (or it was too large to keep). */
  body: Buffer | undefined;
}

/** A violation as printed and recorded: a field name or message may quote what the client sent, secrets included. */
export function redactViolation(v: Violation): Violation {
  return { ...v, message: redactSecrets(v.message), ...(v.field === undefined ? {} : { field: redactSecrets(v.field) }) };
}

const BODYLESS = new Set(['GET', 'DELETE']);

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function schemaViolations(schema: z.ZodType, input: unknown, rule: string, spec: string, prefix = ''): Violation[] {
  // The emulator's own reading (schema, then ill-formed text), so the proxy names what it would refuse.
  return contractDetails(schema, input, prefix).details.map((d) => ({
    rule,
    spec,
    field: d.field || undefined,
    message: `${d.field || '(body)'}: ${d.code} — ${d.message}`,
  }));
}

function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of query) out[k] = v;
  return out;
}

/** What the client sent, checked against its endpoint row: path, query, Idempotency-Key and body. */
export function checkRequest(req: RequestFacts): { match: MatchedEndpoint | undefined; violations: Violation[] } {
  const match = matchEndpoint(req.method, req.path);
  if (!match) {
    return {
      match,
      violations: [{ rule: 'unknown_endpoint', spec: 'Endpoints', message: `${req.method} ${req.path} is not an operation of the API v1.` }],
    };
  }
  const { endpoint } = match;
  const out: Violation[] = [];
  if (endpoint.params) out.push(...schemaViolations(endpoint.params, match.params, 'invalid_path', 'Endpoints', 'path'));
  if (endpoint.query) out.push(...schemaViolations(endpoint.query, queryObject(req.query), 'invalid_query', 'Endpoints', 'query'));
  else if ([...req.query.keys()].length > 0) {
    out.push({ rule: 'invalid_query', spec: 'Endpoints', message: `${endpoint.method} ${endpoint.path} takes no query parameters.` });
  }
  const key = req.idempotencyKey;
  if (key === undefined && endpoint.idempotency === 'required') {
    out.push({ rule: 'idempotency_key_required', spec: 'Errors — Idempotency rules 1', message: 'Idempotency-Key header missing; this operation requires one.' });
  } else if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    out.push({ rule: 'invalid_idempotency_key', spec: 'Errors — Idempotency rules 1', message: 'Idempotency-Key must be 8 to 100 characters of letters, digits and - _ . :' });
  }
  out.push(...bodyViolations(req, match));
  return { match, violations: out };
}

function bodyViolations(req: RequestFacts, { endpoint }: MatchedEndpoint): Violation[] {
  const hasBody = req.body !== undefined && req.body.length > 0;
  if (!endpoint.body) {
    if (hasBody && BODYLESS.has(endpoint.method)) {
      return [{ rule: 'unexpected_body', spec: 'Endpoints — Request column', message: `${endpoint.method} ${endpoint.path} takes no body.` }];
    }
    return [];
  }
  if (!hasBody) {
    return [{ rule: 'malformed_json', spec: 'Errors — 400 malformed_json', message: 'The operation needs a JSON object body and none was sent.' }];
  }
  if (!/^application\/json(\s*;|$)/i.test(req.contentType ?? '')) {
    return [{ rule: 'malformed_json', spec: 'Conventions — Format', message: `Content-Type must be application/json; charset=utf-8 (got ${req.contentType ?? 'none'}).` }];
  }
  const parsed = parseJson(req.body!.toString('utf8'));
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return [{ rule: 'malformed_json', spec: 'Errors — 400 malformed_json', message: 'The body is not a valid JSON object.' }];
  }
  return schemaViolations(endpoint.body, parsed.value, 'validation_failed', 'Resources — field rules; Errors — 422');
}

export interface ResponseFacts {
  status: number;
  contentType: string | undefined;
  body: Buffer | undefined;
}

/** What the service answered, checked against the endpoint row's success body or the error body. */
export function checkResponse(match: MatchedEndpoint | undefined, res: ResponseFacts): Violation[] {
  if (!match || res.body === undefined) return [];
  const text = res.body.toString('utf8');
  const parsed = parseJson(text);
  if (!parsed.ok) {
    return [{ rule: 'response_not_json', spec: 'Conventions — Format', message: `The ${res.status} response is not JSON.` }];
  }
  const { endpoint } = match;
  const success = [endpoint.status, ...(endpoint.alsoStatus ?? [])];
  if (res.status >= 400) return responseSchema(errorBody, parsed.value, 'Errors — error body shape');
  if (success.includes(res.status)) return responseSchema(endpoint.response, parsed.value, `Endpoints — ${endpoint.method} ${endpoint.path}`);
  return [{ rule: 'unexpected_status', spec: 'Endpoints — Success response', message: `${res.status} is not a documented success status (${success.join(', ')}).` }];
}

function responseSchema(schema: z.ZodType, value: unknown, spec: string): Violation[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  // spec: Conventions — clients ignore unknown fields in responses; only missing or wrong ones count.
  const issues = result.error.issues.filter((i) => i.code !== 'unrecognized_keys');
  return issuesToDetails(issues).map((d) => ({
    rule: 'response_schema',
    spec,
    field: d.field || undefined,
    message: `response ${d.field || '(body)'}: ${d.code} — ${d.message}`,
  }));
}
