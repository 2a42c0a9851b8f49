import { z } from 'zod';
import { LIMITS } from './limits.js';
import { IPV4, isLoopbackHost } from './hosts.js';

export { isLoopbackHost };

// The written form a webhook URL must have, as one pattern: the emulator checks it and the OpenAPI
// document shows it, so both accept exactly the same texts (issue 14). http(s) to a loopback host, or
// https to a public host: a dotted-decimal address outside the private, shared, link-local,
// protocol, documentation, benchmarking, multicast and reserved IPv4 ranges (the outbound policy's,
// emulator/net/address-policy.ts), or a name of letters, digits and hyphens with a dot, whose last
// label is not a number (the URL parser reads `a.123`, `a.0x1f` and `0300.0250.0.1` as addresses, or
// refuses them) and that does not end in .local or .internal. Scheme and host in any letter case (the
// URL parser lowercases them); an optional port; a path and query of RFC 3986 characters only (no
// space, control character or raw non-ASCII: percent-encode them); no user, no fragment. IPv6
// literals other than [::1] are refused: a pattern cannot tell their public ranges apart.

/** `word` in any letter case, as a pattern (`local` → `[lL][oO][cC][aA][lL]`). */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');

const OCTET = String.raw`(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`;
const DOTTED = String.raw`${OCTET}(?:\.${OCTET}){3}`;
const END = String.raw`(?=[:/?]|$)`;
const LOOPBACK = String.raw`(?:${anyCase('localhost')}|127(?:\.${OCTET}){3}|\[::1\])${END}`;
const REFUSED_V4 =
  String.raw`(?!(?:0|10|127)\.|192\.168\.|169\.254\.|172\.(?:1[6-9]|2[0-9]|3[01])\.|100\.(?:6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\.|(?:22[4-9]|2[3-5][0-9])\.)` +
  String.raw`(?!192\.0\.[02]\.|192\.88\.99\.|198\.1[89]\.|198\.51\.100\.|203\.0\.113\.)`;
const PUBLIC_V4 = `${REFUSED_V4}${DOTTED}${END}`;
const LOCAL_NAME = String.raw`(?![^/?:]*\.(?:${anyCase('local')}|${anyCase('internal')})${END})`;
const PUBLIC_NAME = String.raw`${LOCAL_NAME}(?:[A-Za-z0-9-]+\.)+(?!0[xX][0-9A-Fa-f]*${END})[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*${END}`;
const PORT = String.raw`(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})`;
const REST = String.raw`(?::${PORT})?(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$`;
export const WEBHOOK_URL_PATTERN = new RegExp(
  String.raw`^(?:${anyCase('http')}${anyCase('s')}?://${LOOPBACK}|${anyCase('https')}://(?:${PUBLIC_V4}|${PUBLIC_NAME}))${REST}`,
);

/** A dotted-decimal address outside the refused IPv4 ranges: the pattern's own test, kept whole. */
const PUBLIC_V4_ADDRESS = new RegExp(`^${REFUSED_V4}${DOTTED}$`);
/**
 * IPv6 prefixes that never name a public receiver: unspecified and IPv4-mapped/compatible (`::`),
 * NAT64 (`64:ff9b:`), documentation (`2001:db8:`), 6to4 (`2002:`), unique local (fc00::/7),
 * link-local (fe80::/10) and multicast (ff00::/8). Hostnames come from `new URL()`: compressed and lowercase.
 */
const NON_PUBLIC_V6 = /^\[(?:::|64:ff9b:|2001:db8:|2002:|f[cd][0-9a-f]{2}:|fe[89ab][0-9a-f]:|ff[0-9a-f]{2}:)/;

/**
 * Hosts that are never a "public" receiver, as the URL parser writes them: the refused IPv4 ranges
 * (the ones the pattern refuses), the IPv6 prefixes above, `.local` and `.internal` names and
 * single-label names. They answer `not_public`; other texts the pattern refuses answer `invalid`.
 */
function isPrivateHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (IPV4.test(h)) return !PUBLIC_V4_ADDRESS.test(h);
  if (h.startsWith('[')) return h !== '[::1]' && NON_PUBLIC_V6.test(h);
  return h.endsWith('.local') || h.endsWith('.internal') || (!h.includes('.') && h !== 'localhost');
}

const MALFORMED =
  'La URL debe tener la forma https://servidor.dominio[:puerto][/ruta][?consulta]: servidor de letras, dígitos, guiones y puntos ' +
  '(o una dirección IPv4; de IPv6 solo [::1]); ruta y consulta sin espacios ni caracteres de control (codifique los demás con %XX).';

/**
 * Why a webhook URL is refused, or null. spec: Webhook configuration — public HTTPS, at most 500
 * characters; the emulator also accepts `http://` to loopback hosts so developers can receive locally.
 * The specific reasons come first, then the written form (`WEBHOOK_URL_PATTERN`), which decides.
 */
export function webhookUrlProblem(value: string): { code: string; message: string } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { code: 'invalid', message: 'Debe ser una URL absoluta válida.' };
  }
  if (url.username || url.password) return { code: 'invalid', message: 'La URL no puede llevar usuario ni contraseña.' };
  if (url.hash || value.includes('#')) return { code: 'invalid', message: 'La URL no puede llevar fragmento (#).' };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) {
    if (url.protocol === 'https:' && !loopback && isPrivateHost(url.hostname)) {
      return { code: 'not_public', message: 'La URL debe ser pública (no una dirección privada o interna).' };
    }
    return WEBHOOK_URL_PATTERN.test(value) ? null : { code: 'invalid', message: MALFORMED };
  }
  return { code: 'https_required', message: 'La URL debe usar HTTPS (se admite http:// solo hacia localhost, 127.0.0.0/8 o [::1]).' };
}

// spec: Limits, text lengths — webhook url 500
export const webhookUrl = z
  .string()
  .min(1)
  .max(LIMITS.text.webhookUrl)
  .superRefine((value, ctx) => {
    if (value.length > LIMITS.text.webhookUrl) return;
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
  })
  .meta({
    format: 'uri',
    pattern: WEBHOOK_URL_PATTERN.source,
    description: 'URL HTTPS pública (máximo 500); el emulador acepta también http:// hacia loopback',
    example: 'https://erp.example.com/webhooks/merchant',
  });
