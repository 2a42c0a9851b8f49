import { startTestEmulator, type TestEmulator } from '../emulator.js';
import type { HomologationReport } from '../../../checks/report.js';
import { startErp, type ZooErp } from './erp.js';
import { homologationService } from '../../../emulator/homologation/observer-state.js';
import { startPerson, type Person } from './person.js';
import type { Variant } from './zoo.js';

export interface Observed {
  report: HomologationReport;
  erp: ZooErp;
  person: Person;
  /** Real seconds from the session's start to its complete report. */
  seconds: number;
  /** The probes the session sent, each attempt, as text. */
  sent: string[];
}

/**
 * One observed session of a zoo ERP on a fresh emulator (system clock, real HTTP): the settings set
 * in the panel, the ERP started (it connects and publishes), the session started with a long
 * timeout, the person doing the tasks; the report polled until it is complete or `budgetSeconds`
 * pass. Everything is closed before it returns.
 */
export async function observeVariant(v: Variant, timeoutSeconds = 600): Promise<Observed> {
  const emu: TestEmulator = await startTestEmulator({ clock: 'system' });
  let erp: ZooErp | undefined;
  let person: Person | undefined;
  try {
    const id = emu.test.integration_id;
    if (v.settings) await emu.control('PATCH', `/integrations/${id}`, { settings: v.settings });
    erp = await startErp({ baseUrl: emu.running.sandbox_base_url, credential: emu.test.credential }, v.spec);
    const started = Date.now();
    const start = await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: timeoutSeconds });
    if (start.status !== 201) throw new Error(`session start: ${start.status} ${JSON.stringify(start.body)}`);
    person = startPerson(emu.running.admin_url, id, erp.api, v.spec.publish ?? 'mixed', v.personMs ?? (() => 200));
    const happening = v.during?.(erp);
    const until = started + (v.budgetSeconds ?? 60) * 1000;
    let report: HomologationReport;
    for (;;) {
      report = (await emu.control<{ data: HomologationReport }>('GET', `/homologation/${id}`)).body.data;
      if (report.complete || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (Date.now() - started) / 1000;
    await happening;
    // What the session sent, for a failing test's message (the report has only the latest of each probe).
    const view = homologationService(emu.running.emulator).sessions.get(id)?.view;
    const sent = (view?.probes ?? []).map((p) => `${p.kind} ${p.status ?? p.error} at +${((p.sent_at - started) / 1000).toFixed(1)} s (${p.duration_ms} ms)`);
    return { report, erp, person, seconds, sent };
  } finally {
    await person?.stop();
    await erp?.close();
    await emu.close();
  }
}

export const verdicts = (r: HomologationReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
/** What did not pass, for a failing assertion's message: each such check, its reason and its evidence, the tasks and notes. */
export function notPassed(r: HomologationReport): string {
  const lines = [`complete ${r.complete}, intake ${r.intake}, notes: ${r.notes.join(' | ')}`];
  for (const c of r.checks.filter((x) => x.status !== 'pass')) {
    lines.push(`${c.id} ${c.status}: ${c.reason}`);
    for (const e of c.evidence) lines.push(`    ${e.ok ? 'ok' : 'x '} ${e.step}: ${e.actual ?? e.status ?? ''}`);
  }
  for (const t of r.tasks) lines.push(`task ${t.id} ${t.action} ${t.status}: ${t.reason ?? t.instruction}`);
  return lines.join('\n');
}
