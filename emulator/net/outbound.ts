import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { bareHost, canonicalAddress, isThisHost, isWildcardAddress, outboundRefusal, type SelfAddress } from './address-policy.js';

/** Thrown (or passed to a socket's callback) when the emulator refuses to connect somewhere. */
export class OutboundRefused extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(readonly reason: 'self' | 'not_public') {
    super(reason === 'self' ? 'target is the emulator itself' : 'target is not an address the emulator may reach');
  }
}

/** What a guard lets through beside public addresses. */
export interface OutboundPolicy {
  /**
   * Loopback and this machine's own addresses: a local emulator's receivers and image servers run
   * there. False on a shared sandbox (DESIGN, Storage and the team sandbox), unless the operator
   * allows them (`--allow-loopback-targets`): an integrator must not probe the host's local services.
   */
  loopback: boolean;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type GuardedLookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

/**
 * DESIGN, Safety of a local dev server — the emulator's outbound requests (webhook deliveries, image
 * downloads) are checked on the address they really connect to: every address a name resolves to
 * must pass (so a name that resolves to 10.0.0.1 or 169.254.169.254 fails whatever it looks like),
 * and an IP literal is checked before connecting (sockets skip `lookup` for those). One guard per
 * emulator; `startEmulator` tells it the listening address once known.
 */
export class OutboundGuard {
  private self: SelfAddress | null = null;

  constructor(readonly policy: OutboundPolicy = { loopback: true }) {}

  /** Called once the server listens (the real port, when 0 was asked for). */
  listening(host: string, port: number): void {
    const localAddresses = isWildcardAddress(host) || !this.policy.loopback ? interfaceAddresses() : undefined;
    this.self = { host: bareHost(host), port, localAddresses };
  }

  /** Refuses an IP literal at once; names are checked by `lookupFor` when the socket resolves them. */
  refusalOf(hostname: string, port: number): OutboundRefused | null {
    const bare = bareHost(hostname);
    if (isIP(bare) === 0) return null;
    const reason = outboundRefusal(bare, port, this.self, this.policy.loopback);
    return reason ? new OutboundRefused(reason) : null;
  }

  /**
   * True when a URL saved now names a host this guard refuses whatever it resolves to: loopback
   * (`localhost`, `*.localhost`, 127/8, `[::1]`) or an address of this machine, while loopback
   * targets are refused. Other names wait for the connection's own check.
   */
  refusesHostOf(url: URL): boolean {
    if (this.policy.loopback) return false;
    const host = bareHost(url.hostname).toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    return isIP(host) !== 0 && isThisHost(host, this.self);
  }

  /** A `lookup` for `net.connect`/`tls.connect` that refuses the connection unless every resolved address passes. */
  lookupFor(port: number): GuardedLookup {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, []);
        for (const { address } of addresses) {
          const reason = outboundRefusal(address, port, this.self, this.policy.loopback);
          if (reason) return callback(new OutboundRefused(reason) as NodeJS.ErrnoException, []);
        }
        if ((options as LookupAllOptions).all) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      });
    };
  }

  /** True when `url` names the emulator's own listening socket by a loopback name or address (checked when a URL is saved). */
  namesSelf(url: URL): boolean {
    if (!this.self) return false;
    const port = urlPort(url);
    const host = bareHost(url.hostname).toLowerCase();
    const address = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : host;
    if (isIP(address) === 0) return false;
    return outboundRefusal(canonicalAddress(address), port, this.self) === 'self';
  }
}

function interfaceAddresses(): Set<string> {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return new Set(all.map((i) => canonicalAddress(i.address)));
}

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}
