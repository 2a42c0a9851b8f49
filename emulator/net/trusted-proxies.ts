import { isIP } from 'node:net';

/**
 * `--trust-proxy`: the addresses (IPs or CIDR ranges) of the load balancers in front of a team
 * sandbox. A request whose connection comes from one of them is counted, for the per-IP limits (30
 * failed authentications a minute, wrong control tokens), by the client address its
 * X-Forwarded-For names, as fastify's `trustProxy` reads it: the nearest address that is not
 * itself trusted. Without the flag, or from any other peer, X-Forwarded-For is ignored, so a client
 * cannot escape a block by writing the header itself.
 */
export function parseTrustedProxies(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of entries.flatMap((e) => e.split(','))) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (!isAddressOrRange(entry)) {
      throw new Error(`--trust-proxy: "${entry}" is not an IP address or a CIDR range (10.0.0.0/8, 127.0.0.1, ::1)`);
    }
    out.push(entry);
  }
  return out;
}

function isAddressOrRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
