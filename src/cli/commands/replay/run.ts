import { Agent, request } from 'undici';
import type { Exchange } from '../proxy/record.js';
import { REDACTED } from '../proxy/record.js';
import { compareBodies, IdMap, redactDifference, type Difference } from './compare.js';
import type { Environment } from '../../context.js';
import { jsonText } from './json-text.js';
import { replayablePath } from './path.js';

export interface ReplayResult {
  seq: number;
  method: string;
  /** The path sent (recorded ids mapped to the target's). */
  path: string;
  recordedStatus: number;
  status: number | undefined;
  differences: Difference[];
  /** Why the request could not be sent (no credential for its environment, target unreachable). */
  error?: string;
}

export interface ReplayOptions {
  exchanges: Exchange[];
  /** The emulator's root address: `http://127.0.0.1:4010`. */
  against: string;
  credentials: Partial<Record<Environment, string>>;
  onResult(result: ReplayResult): void;
}

/** The environment a recorded path belongs to, from its base path. */
function environmentOf(path: string): Environment | undefined {
  if (path.startsWith('/sandbox/v1/') || path === '/sandbox/v1') return 'test';
  if (path.startsWith('/v1/') || path === '/v1') return 'live';
  return undefined;
}

// Recorded headers that are the recording's own (or secret, masked) and never resent as they were.
const NOT_RESENT = new Set(['authorization', 'host', 'content-length', 'x-request-id', 'user-agent', 'accept-encoding']);

function parse(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sends the recorded requests in order to the target, mapping ids learnt from earlier answers, and
 * compares each answer with the recorded one. Returns the number of requests that differ.
 */
export async function replay(options: ReplayOptions): Promise<number> {
  const ids = new IdMap();
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const origin = new URL(options.against).origin;
  let differing = 0;
  try {
    for (const exchange of options.exchanges) {
      const result = await replayOne(exchange, origin, options.credentials, ids, agent);
      if (result.error || result.differences.length > 0) differing++;
      options.onResult(result);
    }
  } finally {
    await agent.close();
  }
  return differing;
}

async function replayOne(
  exchange: Exchange,
  origin: string,
  credentials: Partial<Record<Environment, string>>,
  ids: IdMap,
  agent: Agent,
): Promise<ReplayResult> {
  // Ids are mapped into a path already checked (read.ts); checked again as it is sent.
  const mapped = ids.apply(exchange.request.path);
  const path = replayablePath(mapped);
  const base = { seq: exchange.seq, method: exchange.request.method, path: path ?? mapped, recordedStatus: exchange.response.status, differences: [] };
  if (path === undefined) return { ...base, status: undefined, error: 'not a call of the API: not sent' };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    if (!NOT_RESENT.has(name)) headers[name] = ids.apply(value);
  }
  if (exchange.request.headers.authorization !== undefined) {
    const environment = environmentOf(path);
    const credential = environment ? credentials[environment] : undefined;
    if (!credential) {
      return { ...base, status: undefined, error: `no credential for the ${environment ?? 'unknown'} environment of ${path}` };
    }
    headers.authorization = `Bearer ${credential}`;
  }
  const body = exchange.request.body === null ? undefined : ids.apply(typeof exchange.request.body === 'string' ? exchange.request.body : jsonText(exchange.request.body));
  let status: number;
  let text: string;
  try {
    const res = await request(`${origin}${path}`, { method: exchange.request.method as 'GET', headers, body, dispatcher: agent });
    status = res.statusCode;
    text = await res.body.text();
  } catch (error) {
    const e = error as Error & { code?: string };
    return { ...base, status: undefined, error: `request failed: ${e.code ?? e.message}` };
  }
  const differences: Difference[] = [];
  if (status !== exchange.response.status) differences.push({ path: 'status', recorded: exchange.response.status, actual: status });
  if (exchange.response.body !== REDACTED) differences.push(...compareBodies(exchange.response.body, parse(text), ids));
  return { ...base, status, differences: differences.map(redactDifference) };
}
