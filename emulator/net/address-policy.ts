import { isIP } from 'node:net';

/**
 * Where the emulator may send its own requests (webhook deliveries, image downloads), decided on a
 * resolved IP address, never on the text of a URL. Pure: a table test covers it
 * (test/emulator/security/address-policy.test.ts).
 *
 * `public` and `loopback` (local receivers and image servers on the developer's machine) are allowed;
 * everything a request from a dev server must never reach is `refused`: private networks, CGNAT,
 * link-local (cloud metadata at 169.254.169.254), unique-local, benchmarking, documentation,
 * "this network", multicast, reserved, and the NAT64 / IPv4-mapped / 6to4 spellings of those.
 */
export type AddressClass = 'public' | 'loopback' | 'refused';

type Range4 = readonly [base: number, prefix: number];

const v4 = (text: string): number => text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
const r4 = (cidr: string): Range4 => {
  const [base, prefix] = cidr.split('/');
  return [v4(base!), Number(prefix)];
};

const REFUSED_V4: readonly Range4[] = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host
  '10.0.0.0/8',
  '100.64.0.0/10', // CGNAT shared space
  '169.254.0.0/16', // link-local, cloud metadata
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
].map(r4);
const LOOPBACK_V4 = r4('127.0.0.0/8');

function inRange4(address: number, [base, prefix]: Range4): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(address / size) === Math.floor(base / size);
}

function classify4(address: number): AddressClass {
  if (inRange4(address, LOOPBACK_V4)) return 'loopback';
  return REFUSED_V4.some((range) => inRange4(address, range)) ? 'refused' : 'public';
}

/** The eight 16-bit groups of an IPv6 address (`::`, embedded IPv4 and a `%zone` allowed). */
function ipv6Groups(text: string): number[] | null {
  let t = text.toLowerCase();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const zone = t.indexOf('%');
  if (zone !== -1) t = t.slice(0, zone);
  if (isIP(t) !== 6) return null;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (dotted) {
    const n = v4(dotted[1]!);
    tail.push(Math.floor(n / 65536), n % 65536);
    t = t.slice(0, -dotted[1]!.length);
    if (t.endsWith(':') && !t.endsWith('::')) t = t.slice(0, -1);
  }
  const [head, rest] = t.includes('::') ? t.split('::') : [t, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = [...parse(rest), ...tail];
  if (rest === undefined) return [...left, ...right];
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

function classify6(g: number[]): AddressClass {
  const embedded = (hi: number, lo: number) => classify4(hi * 65536 + lo);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 7) && g[7] === 1) return 'loopback'; // ::1
  if (zeros(0, 5) && g[5] === 0xffff) return embedded(g[6]!, g[7]!); // ::ffff:a.b.c.d, IPv4-mapped
  if (zeros(0, 6)) return 'refused'; // ::, and the deprecated IPv4-compatible ::a.b.c.d
  // NAT64 (RFC 6052 well-known prefix): only a translated public address is public; 64:ff9b:1::/48 is local use.
  if (g[0] === 0x64 && g[1] === 0xff9b) return zeros(2, 6) ? publicOnly(embedded(g[6]!, g[7]!)) : 'refused';
  if (g[0] === 0x2002) return publicOnly(embedded(g[1]!, g[2]!)); // 6to4 carries an IPv4 address
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'refused'; // documentation 2001:db8::/32
  if (g[0] === 0x2001 && g[1]! < 0x200) return 'refused'; // 2001::/23 IETF protocol assignments (Teredo, benchmarking 2001:2::/48…)
  if (g[0] === 0x0100 && zeros(1, 4)) return 'refused'; // 100::/64 discard-only
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'refused'; // fc00::/7 unique-local
  if ((first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0) return 'refused'; // link-local, old site-local
  if ((first & 0xff00) === 0xff00) return 'refused'; // multicast
  return 'public';
}

// A loopback address behind a translator or tunnel is not the developer's own machine.
const publicOnly = (c: AddressClass): AddressClass => (c === 'public' ? 'public' : 'refused');

/** A URL's or socket's host without the brackets of an IPv6 literal (`[::1]` → `::1`). */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** The class of one IP address (IPv4 dotted, or IPv6 with or without brackets); anything else is refused. */
export function classifyAddress(address: string): AddressClass {
  if (isIP(address) === 4) return classify4(v4(address));
  const groups = ipv6Groups(address);
  return groups ? classify6(groups) : 'refused';
}

/** The listening socket of the emulator itself, which its own requests must never reach. */
export interface SelfAddress {
  host: string;
  port: number;
  /** Addresses of this machine's interfaces (canonical text), for an emulator bound to a wildcard address or one that refuses loopback targets. */
  localAddresses?: ReadonlySet<string>;
}

/** A canonical text for comparing addresses: IPv4 dotted, IPv6 as eight hex groups, mapped IPv4 as IPv4. */
export function canonicalAddress(address: string): string {
  if (isIP(address) === 4) return address;
  const g = ipv6Groups(address);
  if (!g) return address.toLowerCase();
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return g.map((x) => x.toString(16)).join(':');
}

const WILDCARDS = new Set(['0.0.0.0', '0:0:0:0:0:0:0:0']);

/** True for a bind address that means every interface (`0.0.0.0`, `::`, `[::]`). */
export function isWildcardAddress(host: string): boolean {
  return WILDCARDS.has(canonicalAddress(bareHost(host)));
}

/** True when a connection to `address:port` would reach the emulator's own listening socket. */
export function isSelf(address: string, port: number, self: SelfAddress | null): boolean {
  if (!self || port !== self.port) return false;
  const target = canonicalAddress(address);
  const bound = canonicalAddress(self.host === 'localhost' ? '127.0.0.1' : self.host);
  if (target === bound || classifyAddress(target) === 'loopback' || WILDCARDS.has(target)) return true;
  return WILDCARDS.has(bound) && (self.localAddresses?.has(target) ?? false);
}

/** True when `address` is loopback, "this host" (0.0.0.0, ::) or one of this machine's own interface addresses. */
export function isThisHost(address: string, self: SelfAddress | null): boolean {
  const target = canonicalAddress(address);
  return classifyAddress(target) === 'loopback' || WILDCARDS.has(target) || (self?.localAddresses?.has(target) ?? false);
}

/**
 * Why the emulator must not connect to `address:port`, or null when it may. `loopbackAllowed`: a
 * local emulator reaches receivers on its own machine; a shared sandbox (DESIGN: bound beyond
 * loopback, or with --admin-token or --database-url) refuses loopback and this machine's own
 * addresses like private ones, unless --allow-loopback-targets.
 */
export function outboundRefusal(address: string, port: number, self: SelfAddress | null, loopbackAllowed = true): 'self' | 'not_public' | null {
  if (isSelf(address, port, self)) return 'self';
  if (classifyAddress(address) === 'refused') return 'not_public';
  return !loopbackAllowed && isThisHost(address, self) ? 'not_public' : null;
}
