import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync, constants } from 'node:zlib';
import { BUNDLE_FORMAT, BUNDLE_VERSION, BundleError, type Bundle, type BundlePayload } from './format.js';

const PAYLOAD_KEY = ',"payload":';

/** The bundle file: gzip of the envelope whose checksum covers the payload's exact JSON text. */
export function encodeBundle(payload: BundlePayload, createdAt: string): { bytes: Buffer; sha256: string } {
  const body = JSON.stringify(payload);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const header = JSON.stringify({ format: BUNDLE_FORMAT, version: BUNDLE_VERSION, created_at: createdAt, sha256 });
  const text = `${header.slice(0, -1)}${PAYLOAD_KEY}${body}}`;
  // Level 1: a 30 MB state compresses to a few MB in well under a second.
  return { bytes: gzipSync(text, { level: constants.Z_BEST_SPEED }), sha256 };
}

/**
 * The most a bundle may unpack to. A store of 20,000 products and 10,000 orders is about 30 MB; the
 * cap keeps a small crafted file (a gzip bomb) from taking the machine's memory.
 */
const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;

/**
 * Reads and checks a bundle completely before anyone uses it: gzip intact and within `maxBytes`
 * unpacked, the envelope's format, a version this merchant-kit reads, and the checksum. Throws
 * BundleError with one line otherwise.
 */
export function decodeBundle(bytes: Buffer, maxBytes = MAX_BUNDLE_BYTES): Bundle {
  let text: string;
  try {
    text = gunzipSync(bytes, { maxOutputLength: maxBytes }).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BundleError(`the bundle unpacks to more than ${Math.round(maxBytes / 1024 / 1024)} MB: not a state this merchant-kit restores`);
    }
    throw new BundleError('the bundle is truncated or damaged (its gzip data is incomplete or corrupt)');
  }
  let parsed: Partial<Bundle>;
  try {
    parsed = JSON.parse(text) as Partial<Bundle>;
  } catch {
    throw new BundleError('the bundle is truncated or damaged (its JSON is incomplete)');
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.format !== BUNDLE_FORMAT) {
    throw new BundleError('not a merchant-kit state bundle');
  }
  if (typeof parsed.version !== 'number' || !Number.isInteger(parsed.version) || parsed.version < 1) {
    throw new BundleError('the bundle has no valid version');
  }
  if (parsed.version > BUNDLE_VERSION) {
    throw new BundleError(`the bundle was made by a newer merchant-kit (bundle version ${parsed.version}; this one reads up to ${BUNDLE_VERSION}): upgrade merchant-kit`);
  }
  const at = text.indexOf(PAYLOAD_KEY);
  const body = at >= 0 && text.endsWith('}') ? text.slice(at + PAYLOAD_KEY.length, -1) : '';
  const actual = createHash('sha256').update(body).digest('hex');
  if (typeof parsed.sha256 !== 'string' || parsed.sha256 !== actual) {
    throw new BundleError('the bundle\'s checksum does not match its contents: it was modified or damaged');
  }
  if (!parsed.payload || typeof parsed.payload !== 'object' || !parsed.payload.environments || !parsed.payload.clock) {
    throw new BundleError('the bundle has no state in it');
  }
  return parsed as Bundle;
}
