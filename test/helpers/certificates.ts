import type { HomologationReport } from '../../checks/report.js';
import { certify, type CertifiedReport } from '../../emulator/certificates/issue.js';
import type { TestEmulator } from './emulator.js';

/**
 * A certificate issued by the emulator's own issuing step for a report made up here, without running
 * an observed session (the tests of verification need a certificate, not a session; the session's
 * own issuing is tested in test/emulator/certificates/issue.test.ts). Each call is a new session.
 */
let sessions = 0;
export async function issueForTest(emu: TestEmulator, overrides: Partial<HomologationReport> = {}): Promise<CertifiedReport> {
  const env = emu.running.emulator.env('test');
  const report = {
    schema_version: '1.2', tool: { name: 'merchant-kit', version: 'test' }, mode: 'observer', generated_at: '2026-01-15T12:00:00.000Z', started_at: '2026-01-15T11:58:00.000Z',
    complete: true, interrupted: false, target: { base_url: emu.running.sandbox_base_url, environment: 'test', emulator: true },
    integration: { id: emu.test.integration_id, store_id: emu.test.store_id, store_name: 'Demo' },
    summary: { total: 1, passed: 1, failed: 0, skipped: 0, pending: 0, certified: true },
    checks: [{ id: 'connection', status: 'pass', mandatory: true, title: 'Connection', reason: 'ok', rule: 'spec', evidence: [] }], tasks: [], notes: ['Ñandutí'],
    ...overrides,
  } as unknown as HomologationReport;
  return certify(emu.running.emulator, {
    env, integrationId: emu.test.integration_id, storeId: emu.test.store_id, sessionStartedAt: Date.UTC(2026, 0, 1) + ++sessions, report,
    intake: 'webhook', settings: { order_status_authority: 'both', ack_expected: 'on_receipt' },
  });
}
