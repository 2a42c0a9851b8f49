import { ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// The claim columns are this adapter's (left out of bundles): which process holds a delivery for one
// attempt, under which token, until when (real time), and what the attempt was (webhook-claims.ts).
export const webhooks: PgMigration = {
  version: 4,
  name: 'webhooks',
  env: `
    CREATE TABLE webhooks (
      integration_id ${TEXT} PRIMARY KEY,
      store_id ${TEXT} NOT NULL,
      url ${TEXT} NOT NULL,
      events ${TEXT} NOT NULL,
      active boolean NOT NULL,
      paused boolean NOT NULL DEFAULT false,
      paused_reason ${TEXT},
      secret ${TEXT} NOT NULL,
      previous_secret ${TEXT},
      previous_expires_at bigint,
      failing_since bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      ${ROWID}
    );

    CREATE TABLE webhook_deliveries (
      seq bigint PRIMARY KEY,
      id ${TEXT} NOT NULL UNIQUE,
      integration_id ${TEXT} NOT NULL,
      event_id ${TEXT} NOT NULL,
      event_type ${TEXT} NOT NULL,
      body ${TEXT} NOT NULL,
      status ${TEXT} NOT NULL,
      attempt_count bigint NOT NULL DEFAULT 0,
      next_attempt_at bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      claim_token ${TEXT},
      claim_owner ${TEXT},
      claim_until bigint,
      claim_manual boolean,
      claim_from ${TEXT},
      claimed_at bigint
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at, seq);
    CREATE INDEX webhook_deliveries_integration ON webhook_deliveries(integration_id, seq);
    CREATE INDEX webhook_deliveries_claims ON webhook_deliveries(claim_until) WHERE status = 'delivering';

    CREATE TABLE webhook_attempts (
      delivery_id ${TEXT} NOT NULL,
      number bigint NOT NULL,
      attempted_at bigint NOT NULL,
      manual boolean NOT NULL,
      succeeded boolean NOT NULL,
      response_status bigint,
      error ${TEXT},
      duration_ms bigint NOT NULL,
      PRIMARY KEY (delivery_id, number)
    );
  `,
};
