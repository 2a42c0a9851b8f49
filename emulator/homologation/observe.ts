import pkg from '../../package.json' with { type: 'json' };
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import { gradeObservation } from '../../checks/grade.js';
import { gradeTasks } from '../../checks/tasks.js';
import { buildReport, type HomologationReport } from '../../checks/report.js';
import type { InjectedFault, Observation, RecordedCall, SessionView } from '../../src/contract/observation.js';
import { toSessionDelivery } from './data.js';
import { homologationService } from './observer-state.js';
import { HOMOLOGATION_TIMEOUT } from '../../src/contract/control.js';
import { ObserverSession } from './session.js';
import { certifiedSession, certify, issuerOf } from '../certificates/issue.js';
import { intakeAndSettings } from './intake.js';

/** The integration's environment: the one its caller's authorization resolved (null: the admin, either). */
async function locate(emulator: Emulator, within: Environment | null, integrationId: string): Promise<{ env: EnvContext; storeId: string; scopes: string[] }> {
  const env = await emulator.envOf(within, (e) => e.store.integrations.byId(integrationId));
  if (!env) throw ApiError.of('not_found', undefined, 'La integración no existe.');
  const integration = (await env.store.integrations.byId(integrationId))!;
  return { env, storeId: integration.storeId, scopes: [...integration.scopes] };
}

/** DESIGN: POST /_emulator/homologation/{id}/start — a new session (a running one is replaced). */
export async function startSession(
  emulator: Emulator, within: Environment | null, integrationId: string, timeoutSeconds: number = HOMOLOGATION_TIMEOUT.default,
): Promise<ObserverSession> {
  const { env, storeId } = await locate(emulator, within, integrationId);
  const service = homologationService(emulator);
  service.sessions.get(integrationId)?.stop();
  const session = new ObserverSession(service, emulator, env, integrationId, storeId, timeoutSeconds);
  service.sessions.set(integrationId, session);
  await session.begin();
  return session;
}

/** Before any session: only the calls are there to grade; what needs the session stays pending. */
function noSession(now: number): SessionView {
  return { started_at: now, deadline: Number.POSITIVE_INFINITY, orders: [], tasks: [], deliveries: [], probes: [], faults: [], problems: [], finished: false };
}

/**
 * DESIGN: GET /_emulator/homologation/{id} — the report so far, in the JSON report's schema, graded
 * from every call the integration made since the emulator started or was reset. Complete once
 * every check is decided or the session's time is up.
 */
export async function observerReport(emulator: Emulator, within: Environment | null, integrationId: string, now = Date.now()): Promise<HomologationReport> {
  const { env, storeId, scopes } = await locate(emulator, within, integrationId);
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
  const view = session ? await session.snapshot() : stored ? await withDeliveries(env, integrationId, stored) : noSession(now);
  const calls = await service.store.calls(integrationId);
  bindFaults(view.faults, calls);
  const observation: Observation = {
    integration_id: integrationId,
    environment: env.name,
    scopes,
    calls,
    session: view,
    now,
  };
  const checks = gradeObservation(observation);
  const decided = checks.every((c) => c.status !== 'pending');
  const store = await env.store.stores.byId(storeId);
  const notes = [...view.problems];
  if (!session && !stored) notes.push('No session started: POST /_emulator/homologation/{integration_id}/start sends the orders, probes and faults.');
  const report = buildReport({
    version: pkg.version,
    mode: 'observer',
    startedAt: new Date(view.started_at),
    now: new Date(now),
    complete: Boolean(session ?? stored) && decided,
    target: { base_url: `${issuerOf(emulator)}${env.basePath}`, environment: env.name, emulator: true },
    integration: { id: integrationId, store_id: storeId, store_name: store?.name ?? null },
    checks,
    tasks: gradeTasks(observation),
    notes,
  });
  // DESIGN: a certified observed session earns a certificate (the session's own, never an automatic run's).
  if (!report.summary.certified || startedAt === undefined) return report;
  const integration = (await env.store.integrations.byId(integrationId))!;
  const webhook = await env.store.webhooks.get(integrationId);
  const graded = intakeAndSettings({ webhookActive: Boolean(webhook?.active), calls, sessionStartedAt: startedAt, settings: integration.settings });
  return certify(emulator, { env, integrationId, storeId, sessionStartedAt: startedAt, report, ...graded });
}

/** A saved view with the regular deliveries of its orders read now. */
async function withDeliveries(env: EnvContext, integrationId: string, view: SessionView): Promise<SessionView> {
  const deliveries = [];
  for (const o of view.orders) {
    for (const d of await env.store.webhooks.deliveriesAboutOrder(integrationId, o.order_id)) deliveries.push(toSessionDelivery(d, env.clock));
  }
  return { ...view, deliveries };
}

/**
 * Each injected fault names the call it answered: the injected calls of its status, in the order
 * they were recorded (faults are taken in the order they were armed), whichever process served them.
 */
function bindFaults(faults: InjectedFault[], calls: RecordedCall[]): void {
  const used = new Set<number>();
  for (const fault of faults) {
    const call = calls.find((c) => c.injected && c.status === fault.status && !used.has(c.seq));
    fault.call_seq = call ? call.seq : null;
    if (call) used.add(call.seq);
  }
}
