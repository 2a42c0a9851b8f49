import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import { nestedDeeperThan, TOO_DEEP_MESSAGE } from '../../src/server/json-depth.js';

const WRONG_TYPE = 'El cuerpo debe enviarse como application/json; charset=utf-8.';

/**
 * spec: Conventions, Format — requests use `Content-Type: application/json; charset=utf-8`, text in
 * UTF-8. Only `application/json` (any case) is accepted, with at most a `charset=utf-8` parameter
 * (any case, quotes optional). `application/vnd.api+json` and the like are other media types.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [media, ...params] = header.split(';');
  if (media!.trim().toLowerCase() !== 'application/json') return false;
  return params.every((param) => {
    if (param.trim() === '') return true;
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') return false;
    const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    return value.toLowerCase() === 'utf-8';
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * spec: Errors, 400 malformed_json — a body must be a JSON object in UTF-8. Any other content type,
 * charset or content encoding with a body is answered the same way (DESIGN: wrong Content-Type →
 * malformed_json). An empty body is no body, whatever its type.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

function parseBody(request: FastifyRequest, bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw ApiError.of('malformed_json', undefined, 'El cuerpo no puede enviarse comprimido (Content-Encoding).');
  }
  if (!isJsonContentType(request.headers['content-type'])) throw ApiError.of('malformed_json', undefined, WRONG_TYPE);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw ApiError.of('malformed_json', undefined, 'El cuerpo no es texto UTF-8 válido.');
  }
  if (text.trim() === '') return undefined;
  // DESIGN: nesting deeper than 1,000 levels is refused before JSON.parse sees it (one linear scan).
  if (nestedDeeperThan(text)) throw ApiError.of('malformed_json', undefined, TOO_DEEP_MESSAGE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw ApiError.of('malformed_json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw ApiError.of('malformed_json');
  return parsed;
}
