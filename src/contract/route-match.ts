import { ALL_ENDPOINTS } from './api.js';
import type { Endpoint } from './endpoint.js';
import { escapeRegExp } from './regexp.js';

/** An endpoint row with the path parameters of one concrete request path. */
export interface MatchedEndpoint {
  endpoint: Endpoint;
  params: Record<string, string>;
}

interface CompiledRow {
  endpoint: Endpoint;
  pattern: RegExp;
  names: string[];
  /** Literal segments first: `/orders/by-external-id/{x}` wins over `/orders/{order_id}`. */
  literals: number;
}

function compile(endpoint: Endpoint): CompiledRow {
  const names: string[] = [];
  const segments = endpoint.path.split('/').filter(Boolean);
  const source = segments
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return escapeRegExp(segment);
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return {
    endpoint,
    pattern: new RegExp(`^/${source}/?$`),
    names,
    literals: segments.length - names.length,
  };
}

const ROWS = ALL_ENDPOINTS.map(compile).sort((a, b) => b.literals - a.literals);

/**
 * The spec's endpoint row for a method and a path relative to the base address (`/orders/ord_…/ack`),
 * or undefined when the API has no such operation.
 */
export function matchEndpoint(method: string, relativePath: string): MatchedEndpoint | undefined {
  const upper = method.toUpperCase();
  for (const row of ROWS) {
    if (row.endpoint.method !== upper) continue;
    const m = row.pattern.exec(relativePath);
    if (!m) continue;
    const params: Record<string, string> = {};
    row.names.forEach((name, i) => {
      params[name] = safeDecode(m[i + 1]);
    });
    return { endpoint: row.endpoint, params };
  }
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
