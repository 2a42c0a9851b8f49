// Secrets never reach a log: credential secrets, webhook signing secrets, store tokens and bearer values are masked
// wherever text may carry them (error messages, stacks, URLs), plain or percent-encoded.

/**
 * The characters after `svs_<env>_`, `whsec_` or `mks_` that are masked: the whole alphabet the CLI accepts
 * in a secret (letters, digits, `_`, `-`: src/cli/config/profiles.ts, listen's --secret), plus `%`
 * and `+`, which an encoded secret shows. A secret is masked to its end, never up to its first `-`.
 * Shared with the bundle's scrubber (emulator/bundle/scrub.ts).
 */
export const SECRET_CHARS = 'A-Za-z0-9_%+-';

const SECRET_PATTERNS: [RegExp, string][] = [
  [new RegExp(`svs_(live|test)_[${SECRET_CHARS}]+`, 'g'), 'svs_$1_[redacted]'],
  [new RegExp(`whsec_[${SECRET_CHARS}]+`, 'g'), 'whsec_[redacted]'],
  // A store token of the emulator's control API (DESIGN: team sandbox).
  [new RegExp(`mks_[${SECRET_CHARS}]+`, 'g'), 'mks_[redacted]'],
  // An access request's claim secret (DESIGN: The operator's public test environment).
  [new RegExp(`mkc_[${SECRET_CHARS}]+`, 'g'), 'mkc_[redacted]'],
  [/(Bearer\s+)\S+/gi, '$1[redacted]'],
];

// A run of URL-ish characters holding at least one %XX escape (`svs%5Ftest%5F…`, `%73vs_test_…`).
const ENCODED_RUN = /[A-Za-z0-9._~%+-]*%[0-9A-Fa-f]{2}[A-Za-z0-9._~%+-]*/g;
const SECRET_INSIDE = /svs_(live|test)_|whsec_|mks_|mkc_|bearer[\s+]/i;

function decodedOnce(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // A stray `%` somewhere: decode the escapes that are valid, one byte at a time.
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Each decoding of the text, up to four (a value encoded twice, `svs%255Ftest…`, still shows its secret). */
function percentDecodings(text: string): string[] {
  const out: string[] = [];
  let current = text;
  for (let i = 0; i < 4 && current.includes('%'); i++) {
    const next = decodedOnce(current);
    if (next === current) break;
    out.push((current = next));
  }
  return out;
}

/**
 * The text with every secret masked: `svs_test_…` → `svs_test_[redacted]`. A percent-encoded run
 * that decodes to a secret (a query string such as `?key=svs%5Ftest%5F…`) is masked whole, since
 * the secret's end cannot be told from the encoding.
 */
export function redactSecrets(text: string): string {
  let out = text;
  if (out.includes('%')) {
    out = out.replace(ENCODED_RUN, (run) => (percentDecodings(run).some((d) => SECRET_INSIDE.test(d)) ? '[redacted]' : run));
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const REDACTED = '[redacted]';

/** Every decoding of `text`, up to four deep, with `+` read as itself and as a space (a form's encoding). */
function everyDecoding(text: string): string[] {
  const out: string[] = [];
  for (const start of text.includes('+') ? [text, text.replace(/\+/g, ' ')] : [text]) {
    let current = start;
    for (let i = 0; i < 4 && current.includes('%'); i++) {
      let next: string;
      try {
        next = decodeURIComponent(current);
      } catch {
        next = current.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      }
      if (next === current) break;
      out.push((current = next));
    }
    if (start !== text) out.push(start);
  }
  return out;
}

const reveals = (text: string, secret: string) => text.includes(secret) || everyDecoding(text).some((d) => d.includes(secret));

// Where a masked run ends: first between a URL's parts (a query value, a path segment), then, when a
// secret spans those (an unencoded `/` inside it), between words.
const FINE_RUN = /[^\s&?#/=;,"']+/g;
const COARSE_RUN = /[^\s"']+/g;

/**
 * `text` with one known secret (the emulator's admin token) masked wherever it shows: as is, or
 * percent-encoded in any way a client may write it (lower- or upper-case escapes, only some
 * characters escaped, `+` for spaces, encoded twice). An encoded run that decodes to the secret is
 * masked whole, since where the secret ends cannot be told from the encoding.
 */
export function redactKnownSecret(text: string, secret: string): string {
  if (secret === '') return text;
  let out = text.split(secret).join(REDACTED);
  if (!/[%+]/.test(out)) return out;
  for (const run of [FINE_RUN, COARSE_RUN]) {
    if (!reveals(out, secret)) break;
    out = out.replace(run, (r) => (reveals(r, secret) ? REDACTED : r));
  }
  return out;
}

/** A log-safe view of an error: type, code, message and stack, each redacted. */
export function redactError(error: unknown): { type: string; message: string; stack: string; [key: string]: unknown } {
  if (!(error instanceof Error)) return { type: typeof error, message: redactSecrets(String(error)), stack: '' };
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    message: redactSecrets(error.message),
    stack: redactSecrets(error.stack ?? ''),
  };
}
