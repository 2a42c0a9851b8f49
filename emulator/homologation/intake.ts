import type { GradedSettings, Intake } from '../../src/contract/certificates.js';
import type { IntegrationSettings } from '../../src/contract/store.js';
import type { RecordedCall } from '../../src/contract/observation.js';

/**
 * DESIGN: Grading the ERPs the spec allows — what a report and a certificate say of how the ERP was
 * graded: its intake (`webhook` when it had an active webhook during the session, `feed` when it had
 * none, `both` when it also read the feed during the session) and the settings that change what is
 * expected of it.
 */
export function intakeAndSettings(input: {
  webhookActive: boolean;
  calls: readonly RecordedCall[];
  sessionStartedAt: number;
  settings: IntegrationSettings;
}): { intake: Intake; settings: GradedSettings } {
  const readFeed = input.calls.some((c) => c.method === 'GET' && c.path === '/events' && c.status < 300 && c.at >= input.sessionStartedAt);
  const intake: Intake = !input.webhookActive ? 'feed' : readFeed ? 'both' : 'webhook';
  return { intake, settings: { order_status_authority: input.settings.order_status_authority, ack_expected: input.settings.ack_expected } };
}
