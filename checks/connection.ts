import type { Check } from './check.js';
import type { MeContext } from '../src/contract/store.js';
import { callEvidence, callsTo, expired, ok2xx } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { INVALID_RESPONSE } from '../src/client/errors.js';
import { environmentOfPath } from '../src/contract/base-paths.js';
import { fail, pass, pending } from './types.js';

/** The scopes the other checks need (spec: Authentication, permissions table). */
const NEEDED_SCOPES = ['store:read', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'] as const;

const missingScopes = (granted: readonly string[]) => NEEDED_SCOPES.filter((s) => !granted.includes(s));

export const connection: Check = {
  id: 'connection',
  title: 'Connection: GET /me, environment and scopes',
  area: 'setup',
  mandatory: true,
  rule: 'Authentication 1–9: every request carries Bearer key.secret; a test credential works only on the test base path; the scopes the integration needs are granted (403 insufficient_scope otherwise).',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    // One retry at most: a target that is down should fail the run in seconds, not after the full backoff.
    const me = await log.call('GET /me', (o) => ctx.client.me(o), { maxRetries: 1 });
    if (!me.ok) {
      // A network error's message already names the call ("GET /me failed: ECONNREFUSED"): said once.
      const reason = `GET /me failed: ${describeError(me.error).replace(/^(\w+: )GET \/me failed: /, '$1')}`;
      if (me.error.status === 0 || me.error.code === INVALID_RESPONSE) ctx.state.unreachable = reason;
      return fail(reason, log.items);
    }
    const view = me.value;
    ctx.state.me = view;
    const credentialEnv = ctx.client.environment;
    const pathEnv = environmentOfPath(ctx.basePath);
    const apiEnv = view.integration.environment;
    const envOk = credentialEnv === apiEnv && (pathEnv === null || pathEnv === apiEnv);
    log.judge(envOk, `credential, base path and GET /me agree on the environment`, `credential ${credentialEnv ?? 'unknown'}, base path ${pathEnv ?? 'unknown'}, GET /me ${apiEnv}`);
    if (!envOk) return fail(`environment mismatch: the credential is ${credentialEnv ?? 'unknown'}, the base path ${pathEnv ?? 'unknown'}, GET /me says ${apiEnv}`, log.items);
    const missing = missingScopes(view.integration.scopes);
    log.note('scopes granted', missing.length === 0, NEEDED_SCOPES.join(', '), view.integration.scopes.join(', ') || 'none');
    if (missing.length) return fail(`missing scope${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, log.items);
    return pass(`GET /me answered ${me.answers.at(-1)?.status} for ${view.integration.id} (${apiEnv}) with every needed scope`, log.items);
  },

  grade(obs) {
    const me = callsTo(obs, 'GET', '/me');
    const good = me.filter(ok2xx);
    const evidence = me.slice(-3).map((c) => callEvidence('GET /me', c, ok2xx(c), '200'));
    if (good.length === 0) {
      return expired(obs) ? fail('the integration never called GET /me successfully', evidence) : pending('waiting for a successful GET /me', evidence);
    }
    const missing = missingScopes(obs.scopes);
    evidence.push({ step: 'scopes granted', ok: missing.length === 0, expected: NEEDED_SCOPES.join(', '), actual: obs.scopes.join(', ') || 'none' });
    if (missing.length) return fail(`missing scope${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, evidence);
    evidence.push({ step: 'environment', ok: true, expected: 'the credential used on its own base path', actual: `${obs.environment} credential on the ${obs.environment === 'test' ? '/sandbox/v1' : '/v1'} base path` });
    return pass(`GET /me answered ${good[0]!.status} (${good.length} call${good.length > 1 ? 's' : ''}); every needed scope granted`, evidence);
  },
};
