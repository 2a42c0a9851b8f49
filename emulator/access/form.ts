import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ACCESS_LIMITS, accessRequestCreate } from '../../src/contract/access-requests.js';
import { ApiError } from '../../src/contract/errors.js';
import { issuesToDetails } from '../../src/contract/validation.js';
import type { Emulator } from '../emulator.js';
import type { HostPolicy } from '../http/host-check.js';
import { sendError, toApiError } from '../http/reply.js';
import type { Language } from './page.js';
import { submitAccessRequest } from './submit.js';
import { issuerOf } from '../certificates/issue.js';
import { readRestOfBody } from '../../src/server/drain.js';

/** The body of a form that is not url-encoded: refused with a page, never parsed. */
const NOT_A_FORM = Symbol('not a url-encoded form');

// The pages and their texts load with the first request for them: an emulator start does not compile
// them (most never open the form).
const pages = () => import('./page.js');

async function htmlReply(reply: FastifyReply, status: number, html: string): Promise<FastifyReply> {
  const { ACCESS_CSP } = await pages();
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', ACCESS_CSP)
    .header('x-content-type-options', 'nosniff')
    // Same-origin: a browser without Sec-Fetch-Site then sends the page's real Origin with the form
    // (under no-referrer it sends `Origin: null`, which tells nothing).
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .send(html);
}

const language = async (request: FastifyRequest): Promise<Language> => (await pages()).languageOf(request.query, request.headers['accept-language']);

/**
 * A form may be sent by the page itself only: a browser says where a form came from (`Sec-Fetch-Site`,
 * which no page can set, decides where it is sent; else `Origin`), and another site's page that posts
 * here is refused, so that no site makes its visitors send requests in their name. A client that is
 * not a browser sends neither, and is let through (it could send the JSON request as well).
 */
function crossSite(request: FastifyRequest, hosts: HostPolicy): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  return origin !== undefined && !hosts.originAllowed(origin, request.headers.host);
}

/** The first value of each field of a url-encoded form (a repeated field is one mistake, refused by its check). */
function fieldsOf(form: URLSearchParams): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (!(name in fields)) fields[name] = value;
  return fields;
}

/**
 * DESIGN: GET /access — the request form, and its submission (POST /access, url-encoded as a plain
 * HTML form sends it): checked like `POST /_emulator/access-requests` (size, fields, the IP's budget,
 * the pending cap) and answered with a page that shows the request's id and claim secret once. Off
 * (404, as an unknown route) unless the emulator was started with `--access-requests open`.
 */
export function accessPagePlugin(emulator: Emulator, hosts: HostPolicy) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // This context only: the form's own body type, bounded in size; anything else is refused unread.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: ACCESS_LIMITS.bodyBytes }, (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    });
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ACCESS_LIMITS.bodyBytes }, (_request, _body, done) => done(null, NOT_A_FORM));
    // A refusal before the handler (a body over the limit) is a page too, in the page's language.
    app.setErrorHandler(async (error, request, reply) => {
      const apiError = toApiError(error);
      if (apiError.code === 'payload_too_large') {
        const { accessRefusedPage, textsOf } = await pages();
        const lang = await language(request);
        // Read the rest first, as the API does, so that a browser still sending reads this page (src/server/drain.ts).
        await readRestOfBody(request.raw);
        return htmlReply(reply, 413, accessRefusedPage(lang, textsOf(lang).tooLarge));
      }
      return sendError(request, reply, apiError);
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (!emulator.options.accessRequests) return void sendError(request, reply, ApiError.of('not_found'));
      done();
    });

    app.get('/access', async (request, reply) => htmlReply(reply, 200, (await pages()).accessFormPage(await language(request))));

    app.post('/access', { bodyLimit: ACCESS_LIMITS.bodyBytes }, async (request, reply) => {
      const { accessFormPage, accessReceivedPage, accessRefusedPage, textsOf } = await pages();
      const lang = await language(request);
      const t = textsOf(lang);
      if (crossSite(request, hosts)) return htmlReply(reply, 403, accessRefusedPage(lang, t.crossSite));
      if (!(request.body instanceof URLSearchParams)) return htmlReply(reply, 415, accessRefusedPage(lang, t.wrongType));
      const values = fieldsOf(request.body);
      const parsed = accessRequestCreate.safeParse(values);
      if (!parsed.success) return htmlReply(reply, 422, accessFormPage(lang, { values, issues: issuesToDetails(parsed.error.issues) }));
      try {
        const created = await submitAccessRequest(emulator, parsed.data, request.ip);
        // The address integrators use (--public-url), not this process's behind a balancer.
        return htmlReply(reply, 201, accessReceivedPage(lang, created, issuerOf(emulator)));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        const why = error.headers['Retry-After'] === String(ACCESS_LIMITS.pendingRetryAfterSeconds) ? error.message : t.rateLimited(error.headers['Retry-After'] ?? '60');
        return htmlReply(reply, 429, accessFormPage(lang, { values, problem: why }));
      }
    });
  };
}
