import type { Migration } from './index.js';

// One webhook per integration (spec: Webhook configuration); its deliveries form a persistent
// queue written in the same transaction as their event, so nothing is lost across a crash.
export const webhooks: Migration = {
  version: 4,
  name: 'webhooks',
  up: `
    CREATE TABLE webhooks (
      integration_id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL,
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      active INTEGER NOT NULL,
      paused INTEGER NOT NULL DEFAULT 0,
      paused_reason TEXT,
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_expires_at INTEGER,
      failing_since INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE webhook_deliveries (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      integration_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL,
      attempt_count INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at, seq);
    CREATE INDEX webhook_deliveries_integration ON webhook_deliveries(integration_id, seq);

    CREATE TABLE webhook_attempts (
      delivery_id TEXT NOT NULL,
      number INTEGER NOT NULL,
      attempted_at INTEGER NOT NULL,
      manual INTEGER NOT NULL,
      succeeded INTEGER NOT NULL,
      response_status INTEGER,
      error TEXT,
      duration_ms INTEGER NOT NULL,
      PRIMARY KEY (delivery_id, number)
    ) STRICT, WITHOUT ROWID;
  `,
};
