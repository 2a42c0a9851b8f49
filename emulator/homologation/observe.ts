import pkg from '../../package.json' with { type: 'json' };
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import { gradeObservation } from '../../checks/grade.js';
import { gradeTasks } from '../../checks/tasks.js';
import { buildReport, type HomologationReport } from '../../checks/report.js';
import { intakeOf, sessionSettings, type SessionSettings } from '../../checks/intake.js';
import type { Observation, SessionView } from '../../src/contract/observation.js';
import { homologationService } from './observer-state.js';
import { HOMOLOGATION_TIMEOUT } from '../../src/contract/control.js';
import { bindFaults, lastSeq, ObserverSession, sessionDeliveries } from './session.js';
import { certifiedSession, certify, issuerOf } from '../certificates/issue.js';

interface Located {
  env: EnvContext;
  storeId: string;
  scopes: string[];
  settings: SessionSettings;
}

/** The integration's environment: the one its caller's authorization resolved (null: the admin, either). */
async function locate(emulator: Emulator, within: Environment | null, integrationId: string): Promise<Located> {
  const env = await emulator.envOf(within, (e) => e.store.integrations.byId(integrationId));
  if (!env) throw ApiError.of('not_found', undefined, 'La integración no existe.');
  const integration = (await env.store.integrations.byId(integrationId))!;
  return { env, storeId: integration.storeId, scopes: [...integration.scopes], settings: sessionSettings(integration.settings) };
}

/** DESIGN: POST /_emulator/homologation/{id}/start — a new session (a running one is replaced). */
export async function startSession(
  emulator: Emulator, within: Environment | null, integrationId: string, timeoutSeconds: number = HOMOLOGATION_TIMEOUT.default,
): Promise<ObserverSession> {
  const { env, storeId } = await locate(emulator, within, integrationId);
  const service = homologationService(emulator);
  service.sessions.get(integrationId)?.stop();
  const session = new ObserverSession(service, emulator, env, integrationId, storeId, timeoutSeconds);
  // The session ends itself as soon as its report is complete.
  session.hooks = { complete: (observation) => decided(observation) };
  service.sessions.set(integrationId, session);
  await session.begin();
  return session;
}

/** Before any session: only the calls are there to grade; what needs the session stays pending. */
function noSession(now: number): SessionView {
  return {
    started_at: now,
    deadline: Number.POSITIVE_INFINITY,
    orders: [],
    tasks: [],
    deliveries: [],
    probes: [],
    faults: [],
    problems: [],
    waiting: 'no session started (POST /_emulator/homologation/{integration_id}/start makes its orders)',
    webhook: null,
    finished: false,
    ended_at: null,
    ended_seq: null,
  };
}

/** Whether the integration's webhook would take deliveries now: set, active and not paused. */
async function webhookActive(env: EnvContext, integrationId: string): Promise<boolean> {
  const webhook = await env.store.webhooks.get(integrationId);
  return Boolean(webhook && webhook.active && !webhook.paused);
}

/**
 * DESIGN: GET /_emulator/homologation/{id} — the report so far, in the JSON report's schema, graded
 * from every call the integration made since the emulator started or was reset. Complete once
 * every verdict is certain or the session's time is up; from then on it is what it was then (the
 * calls after the session's end are not graded).
 */
export async function observerReport(emulator: Emulator, within: Environment | null, integrationId: string, now = Date.now()): Promise<HomologationReport> {
  const { env, storeId, scopes, settings } = await locate(emulator, within, integrationId);
  const service = homologationService(emulator);
  const session = service.sessions.get(integrationId);
  // Run here, or on another process of a shared sandbox (its view as it last saved it).
  const stored = session ? null : await service.store.session(integrationId);
  // A certified session's report is the one its certificate digests: every later read answers it.
  const startedAt = session?.view.started_at ?? stored?.started_at;
  if (startedAt !== undefined) {
    const certified = await certifiedSession(emulator, integrationId, startedAt);
    if (certified) return certified;
  }
  const view = session ? await session.snapshot() : stored ? { ...stored, deliveries: await sessionDeliveries(env, integrationId, stored) } : noSession(now);
  const at = view.ended_at ?? now;
  const calls = (await service.store.calls(integrationId)).filter((c) => view.ended_seq === null || view.ended_seq === undefined || c.seq <= view.ended_seq);
  const observation: Observation = {
    integration_id: integrationId,
    environment: env.name,
    scopes,
    calls,
    session: view,
    now: at,
    settings,
    webhook_active: await webhookActive(env, integrationId),
  };
  bindFaults(view.faults, calls);
  const checks = gradeObservation(observation);
  const complete = Boolean(session ?? stored) && checks.every((c) => c.status !== 'pending');
  // Decided here before the session's own look: it ends now (its report frozen from here on).
  if (complete && session && view.ended_at === null) await session.end(at, lastSeq(calls));
  const store = await env.store.stores.byId(storeId);
  const notes = [...view.problems];
  if (view.waiting && !session && !stored) notes.push('No session started: POST /_emulator/homologation/{integration_id}/start sends the orders, probes and faults.');
  else if (view.waiting && !complete) notes.push(`The session waits: ${view.waiting}.`);
  const report = buildReport({
    version: pkg.version,
    mode: 'observer',
    startedAt: new Date(view.started_at),
    now: new Date(at),
    complete,
    target: { base_url: `${issuerOf(emulator)}${env.basePath}`, environment: env.name, emulator: true },
    integration: { id: integrationId, store_id: storeId, store_name: store?.name ?? null },
    checks,
    tasks: gradeTasks(observation),
    intake: intakeOf(observation),
    settings,
    notes,
  });
  // DESIGN: a certified observed session earns a certificate (the session's own, never an automatic
  // run's), naming the intake and settings its report names.
  if (!report.summary.certified || startedAt === undefined) return report;
  return certify(emulator, { env, integrationId, storeId, sessionStartedAt: startedAt, report, intake: report.intake!, settings: report.settings! });
}

/** Whether every check of an observation is decided (the session's own look asks). */
function decided(observation: Observation): boolean {
  bindFaults(observation.session.faults, observation.calls);
  return gradeObservation(observation).every((c) => c.status !== 'pending');
}
