import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { RevokedCertificate } from '../../../contract/certificates.js';
import { isLoopbackHost } from '../../../contract/hosts.js';
import { certificateOf, verifyCertificate, type CertificateVerification } from '../../../certificates/index.js';
import { ExitError, usageError } from '../../errors.js';
import { emit, note, printSummary } from '../../output.js';
import { controlTarget } from '../emulator/control-call.js';
import type { VerifyOptions } from './index.js';

/** At most this many bytes of a key set, a revocation list or a certificate's file. */
const MAX_BYTES = 5_000_000;

async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw usageError(`error: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(`error: ${where} is not JSON`);
  }
}

/** The certificate's JWS and the report it came in (when the input is a report): a JWS text, or JSON that carries one. */
function certificateIn(text: string, where: string): { jws: string; report: Record<string, unknown> | null } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { jws: trimmed, report: null };
  const found = certificateOf(parseJson(trimmed, where));
  if (!found) throw new ExitError(`error: ${where} carries no certificate (a report has one only when its observed session was certified)`, 1, { code: 'malformed' });
  return found;
}

/** A GET of JSON over https (http only for loopback, as the CLI's base URLs), bounded in time and size. */
async function fetchJson(url: URL): Promise<unknown> {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw usageError(`error: ${url.href} must be https:// (http:// only for loopback addresses)`);
  }
  const { request } = await import('undici');
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, { method: 'GET', headers: { accept: 'application/json' }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  } catch (error) {
    throw new ExitError(`error: cannot read ${url.href} (${(error as { code?: string }).code ?? (error as Error).message})`, 1);
  }
  const bytes = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new ExitError(`error: ${url.href} answered ${response.statusCode}`, 1);
  if (bytes.length > MAX_BYTES) throw new ExitError(`error: ${url.href} answered more than ${MAX_BYTES} bytes`, 1);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ExitError(`error: ${url.href} did not answer JSON`, 1);
  }
}

interface Keys {
  keys: { keys: unknown[] };
  revoked: RevokedCertificate[] | undefined;
  /** Where they were read, for the output. */
  from: string;
}

/** The key set, and the revocation list beside it when the keys come from a URL. */
async function keysOf(options: VerifyOptions, command: Command): Promise<Keys> {
  let url: URL;
  if (options.keys !== undefined && !/^https?:\/\//i.test(options.keys)) {
    const set = parseJson(await readInput(options.keys), options.keys) as { keys?: unknown };
    if (!set || !Array.isArray(set.keys)) throw usageError(`error: ${options.keys} is not a JWKS ({"keys": […]})`);
    return { keys: { keys: set.keys }, revoked: undefined, from: options.keys };
  }
  try {
    url = new URL(options.keys ?? `${(await controlTarget(command)).admin}/certificates/keys`);
  } catch {
    throw usageError(`error: --keys ${options.keys} is not a URL`);
  }
  const set = (await fetchJson(url)) as { keys?: unknown };
  if (!set || !Array.isArray(set.keys)) throw new ExitError(`error: ${url.href} is not a JWKS ({"keys": […]})`, 1);
  const revokedUrl = new URL('revoked', url);
  const list = (await fetchJson(revokedUrl)) as { data?: unknown };
  if (!list || !Array.isArray(list.data)) throw new ExitError(`error: ${revokedUrl.href} is not a revocation list ({"data": […]})`, 1);
  return { keys: { keys: set.keys }, revoked: list.data as RevokedCertificate[], from: url.href };
}

function printValid(result: Extract<CertificateVerification, { valid: true }>, keys: Keys): void {
  const p = result.payload;
  printSummary([
    ['Certificate', `${p.jti}: valid`],
    ['Issuer', p.iss],
    ['Integration', p.sub],
    ['Store', p.store_id],
    ['System', p.system],
    ['Environment', p.environment],
    ['Intake', p.intake],
    ['Settings', `order_status_authority ${p.settings.order_status_authority}, ack_expected ${p.settings.ack_expected}`],
    ['Checks passed', p.checks.join(', ')],
    ['Issued at', new Date(p.iat * 1000).toISOString()],
    ['Signed by key', `${result.header.kid} (${keys.from})`],
    ['Revocations', result.checked.revocations ? 'checked: not revoked' : 'not checked (keys from a file: pass the JWKS URL to check them)'],
    ['Report', result.checked.report ? `checked: SHA-256 ${p.report_sha256}` : `not checked (pass --report homologation.json); certified SHA-256 ${p.report_sha256}`],
  ]);
}

/** `certificate verify`: exit 0 with the payload when the certificate is valid, 1 with the reason when not. */
export async function verifyAction(file: string, options: VerifyOptions, command: Command): Promise<void> {
  const json = Boolean(command.optsWithGlobals().json);
  const where = file === '-' ? 'stdin' : file;
  const input = certificateIn(await readInput(file), where);
  const report = options.report !== undefined ? unwrap(parseJson(await readInput(options.report), options.report)) : (input.report ?? undefined);
  const keys = await keysOf(options, command);
  const result = verifyCertificate(input.jws, { keys: keys.keys, revoked: keys.revoked, report });
  if (!result.valid) {
    throw new ExitError(`error: the certificate is not valid: ${result.message}`, 1, { code: result.reason, details: result.payload ?? null });
  }
  emit(json, result.payload, () => printValid(result, keys));
  if (!json && !result.checked.revocations) note('note: revocations were not checked.');
}

/** A report given as the observer's answer (`{data: report}`) or as the file itself. */
function unwrap(value: unknown): unknown {
  const v = value as { data?: unknown; schema_version?: unknown } | null;
  return v && typeof v === 'object' && 'data' in v && !('schema_version' in v) ? v.data : value;
}
