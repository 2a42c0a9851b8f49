import { isLoopbackHost } from '../../src/contract/webhooks.js';
import { isWildcardAddress } from '../net/address-policy.js';

/**
 * DESIGN, Safety of a local dev server — the names the emulator answers to. A web page the developer
 * opens can make the browser send requests to 127.0.0.1:4010 (form posts, or DNS rebinding with a
 * name of its own that resolves to 127.0.0.1): such requests carry a `Host` or `Origin` that is not
 * one of these names, and are refused, as webpack-dev-server and Vite do.
 *
 * Built once at start-up: the per-request check is a slice, a lower-casing and a Set lookup.
 */
export interface HostPolicy {
  /** True when a request with this `Host` header may be served. */
  hostAllowed(header: string | undefined): boolean;
  /** True when a browser `Origin` header names the emulator (same origin as `host`, or an allowed name). */
  originAllowed(origin: string, host: string | undefined): boolean;
}

/** `[::1]` for an IPv6 literal, lower case otherwise; a port is dropped. */
export function hostOnly(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    return end === -1 ? v : v.slice(0, end + 1);
  }
  const colon = v.indexOf(':');
  if (colon === -1) return v;
  // A bare IPv6 address (several colons) given as an --allowed-host value or a bind address.
  return v.indexOf(':', colon + 1) === -1 ? v.slice(0, colon) : `[${v}]`;
}

export function createHostPolicy(boundHost: string, allowedHosts: readonly string[] = []): HostPolicy {
  const bound = hostOnly(boundHost);
  const names = new Set(['localhost', '127.0.0.1', '[::1]', bound, ...allowedHosts.map(hostOnly)]);
  // Bound to every interface or to a non-loopback address (which needs --admin-token), the emulator is
  // reached by names it cannot know (a CI service container as http://emulator:4010): any Host,
  // unless --allowed-host names some.
  const open = allowedHosts.length === 0 && (isWildcardAddress(bound) || !isLoopbackHost(bound));
  // Clients send the same few Host values again and again: remember the verdict per raw header
  // (bounded, so a stream of made-up names cannot grow it).
  const verdicts = new Map<string, boolean>();
  const judge = (header: string): boolean => {
    let verdict = verdicts.get(header);
    if (verdict === undefined) {
      verdict = names.has(hostOnly(header));
      if (verdicts.size < 256) verdicts.set(header, verdict);
    }
    return verdict;
  };
  return {
    hostAllowed: open ? () => true : (header) => header !== undefined && judge(header),
    originAllowed(origin, host) {
      const scheme = origin.indexOf('://');
      if (scheme === -1) return false; // `null` (sandboxed frames, file://) and anything malformed
      const authority = origin.slice(scheme + 3).toLowerCase();
      if (host !== undefined && authority === host.toLowerCase()) return true;
      return names.has(hostOnly(authority));
    },
  };
}
