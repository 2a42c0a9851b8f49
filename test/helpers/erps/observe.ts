import { startTestEmulator, type TestEmulator } from '../emulator.js';
import type { HomologationReport } from '../../../checks/report.js';
import { startErp, type ZooErp } from './erp.js';
import { startPerson, type Person } from './person.js';
import type { Variant } from './zoo.js';

export interface Observed {
  report: HomologationReport;
  erp: ZooErp;
  person: Person;
  /** Real seconds from the session's start to its complete report. */
  seconds: number;
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
    return { report, erp, person, seconds };
  } finally {
    await person?.stop();
    await erp?.close();
    await emu.close();
  }
}

export const verdicts = (r: HomologationReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
/** What did not pass, for a failing assertion's message. */
export const notPassed = (r: HomologationReport) => JSON.stringify({ complete: r.complete, notes: r.notes, tasks: r.tasks, checks: r.checks.filter((c) => c.status !== 'pass') }, null, 1);
