import { describe, expect, it } from 'vitest';
import { redactKnownSecret } from '../../src/logging/redact.js';

// Issue 24 (low): the admin token sent in a query string reached the --verbose log in clear (store
// tokens and credentials have a prefix the log masks; the admin token is any text). Masked as is and
// in every percent-encoding a client may use.

const TOKEN = 'token/de+administración=largo';
const ENCODED = encodeURIComponent(TOKEN);

describe('redactKnownSecret', () => {
  it.each([
    ['as is', `/_emulator/health?token=${TOKEN}`],
    ['percent-encoded', `/_emulator/health?token=${ENCODED}`],
    ['with lower-case escapes', `/_emulator/health?token=${ENCODED.toLowerCase()}`],
    ['encoded twice', `/_emulator/health?t=${encodeURIComponent(ENCODED)}`],
    ['partly encoded (what a browser sends)', `/_emulator/health?token=token/de+administraci%C3%B3n=largo`],
    ['in a path segment', `/_emulator/${ENCODED}/x`],
    ['every character escaped', `/x?t=${[...Buffer.from(TOKEN)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`],
  ])('masks the token %s', (_how, url) => {
    const out = redactKnownSecret(url, TOKEN);
    expect(out).toContain('[redacted]');
    expect(out).not.toContain('administraci');
    expect(decodeURIComponent(out.replace(/\+/g, ' '))).not.toContain('administraci');
  });

  it('masks a token with spaces written with + (a form\'s encoding)', () => {
    expect(redactKnownSecret('/x?token=sixteen+chars+ok&a=1', 'sixteen chars ok')).toBe('/x?token=[redacted]&a=1');
  });

  it('keeps the rest of the line where the token is a query value of its own', () => {
    expect(redactKnownSecret(`/_emulator/health?token=${ENCODED}&limit=5`, TOKEN)).toBe('/_emulator/health?token=[redacted]&limit=5');
  });

  it('leaves text without the token as it is', () => {
    const url = '/_emulator/logs?path=%2Fsandbox%2Fv1%2F**&limit=5';
    expect(redactKnownSecret(url, TOKEN)).toBe(url);
  });
});
