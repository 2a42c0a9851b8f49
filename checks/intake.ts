import { INTAKES, type GradedSettings, type Intake } from '../src/contract/certificates.js';
import type { Observation } from '../src/contract/observation.js';

export { INTAKES, type Intake };
/** The integration settings the observer grades by (the certificate's `settings`). */
export type SessionSettings = GradedSettings;

// DESIGN: Grading the ERPs the spec allows — the report (and the certificate built on it) names how
// the observed ERP takes its orders in and the two settings that change what is graded.

/**
 * The intake of an observed ERP (the report's and its certificate's). An integration with no active
 * webhook when the session made its orders is a feed integrator (`feed`); with one, `webhook`, or
 * `both` once it also read the feed during the session (a reconciliation, never demanded). Before a
 * session made its orders, the webhook as it is now decides.
 * @example
 * intakeOf(observation) // 'both'
 */
export function intakeOf(obs: Pick<Observation, 'calls' | 'session' | 'webhook_active'>): Intake {
  const webhook = obs.session.webhook ?? obs.webhook_active;
  if (!webhook) return 'feed';
  const readFeed = obs.calls.some((c) => c.method === 'GET' && c.path === '/events' && c.status >= 200 && c.status < 300 && c.at >= obs.session.started_at);
  return readFeed ? 'both' : 'webhook';
}

/**
 * The settings a report names, from the integration's settings as the panel keeps them (defaults
 * where a setting was never set: `both`, `on_receipt`).
 * @example
 * sessionSettings(integration.settings) // { order_status_authority: 'service', ack_expected: 'on_receipt' }
 */
export function sessionSettings(settings: { order_status_authority?: string; ack_expected?: string }): SessionSettings {
  const authority = settings.order_status_authority;
  return {
    order_status_authority: authority === 'erp' || authority === 'service' ? authority : 'both',
    ack_expected: settings.ack_expected === 'after_acceptance' ? 'after_acceptance' : 'on_receipt',
  };
}
