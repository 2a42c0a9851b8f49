import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';

/**
 * spec: Errors, 400 malformed_json — a body must be a JSON object. Any other content type with a
 * body is answered the same way (DESIGN: wrong Content-Type → malformed_json).
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/(.+\+)?json(\s*;.*)?$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(ApiError.of('malformed_json'), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(ApiError.of('malformed_json'), undefined);
    }
    done(null, parsed);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(ApiError.of('malformed_json', undefined, 'El cuerpo debe enviarse como application/json; charset=utf-8.'), undefined);
  });
}
