import { DEFERRABLE, ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

export const core: PgMigration = {
  version: 1,
  name: 'core',
  env: `
    CREATE TABLE stores (
      id ${TEXT} PRIMARY KEY,
      slug ${TEXT} NOT NULL UNIQUE,
      name ${TEXT} NOT NULL,
      switch_on boolean NOT NULL DEFAULT true,
      suspended boolean NOT NULL DEFAULT false,
      payment_methods ${TEXT} NOT NULL,
      fulfillment_types ${TEXT} NOT NULL,
      order_seq bigint NOT NULL DEFAULT 0,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      ${ROWID}
    );

    CREATE TABLE integrations (
      id ${TEXT} PRIMARY KEY,
      store_id ${TEXT} NOT NULL REFERENCES stores(id) ${DEFERRABLE},
      system ${TEXT} NOT NULL,
      status ${TEXT} NOT NULL,
      scopes ${TEXT} NOT NULL,
      settings ${TEXT} NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      ${ROWID}
    );
    CREATE INDEX integrations_store ON integrations(store_id);

    CREATE TABLE credentials (
      key_id ${TEXT} PRIMARY KEY,
      integration_id ${TEXT} NOT NULL REFERENCES integrations(id) ${DEFERRABLE},
      secret_sha256 bytea NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint,
      revoked_at bigint,
      ${ROWID}
    );
    CREATE INDEX credentials_integration ON credentials(integration_id);

    -- owner and lease_until are this adapter's (left out of bundles): a claim of a process that died
    -- is free again once its lease ran out (idempotency.ts).
    CREATE TABLE idempotency_keys (
      integration_id ${TEXT} NOT NULL,
      key ${TEXT} NOT NULL,
      fingerprint ${TEXT} NOT NULL,
      state ${TEXT} NOT NULL,
      status_code bigint,
      response ${TEXT},
      created_at bigint NOT NULL,
      owner ${TEXT},
      lease_until bigint,
      ${ROWID},
      PRIMARY KEY (integration_id, key)
    );
    CREATE INDEX idempotency_keys_owner ON idempotency_keys(owner) WHERE state = 'processing';

    -- seq comes from the sequences table (events.ts): positions in commit order.
    CREATE TABLE events (
      seq bigint PRIMARY KEY,
      id ${TEXT} NOT NULL UNIQUE,
      type ${TEXT} NOT NULL,
      store_id ${TEXT} NOT NULL,
      integration_id ${TEXT} NOT NULL,
      created_at bigint NOT NULL,
      data ${TEXT} NOT NULL
    );
    CREATE INDEX events_integration ON events(integration_id, seq);
    CREATE INDEX events_created ON events(created_at);

    -- SQLite's sqlite_sequence: the last position handed out per table (a bundle's "sequences").
    CREATE TABLE sequences (
      name ${TEXT} PRIMARY KEY,
      seq bigint NOT NULL
    );
  `,
  shared: `
    -- One row: what every process reads at the start of each request (coordination.ts).
    CREATE TABLE sandbox_state (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      generation bigint NOT NULL DEFAULT 0,
      clock_mode ${TEXT},
      clock_offset_ms bigint,
      clock_frozen_at bigint,
      chaos ${TEXT}
    );
    INSERT INTO sandbox_state DEFAULT VALUES;

    -- Counters only matter for the minute they count: not worth the write-ahead log.
    CREATE UNLOGGED TABLE rate_windows (
      kind ${TEXT} NOT NULL,
      key ${TEXT} NOT NULL,
      window_start bigint NOT NULL,
      count bigint NOT NULL,
      PRIMARY KEY (kind, key)
    );

    CREATE TABLE batch_gate (
      environment ${TEXT} NOT NULL,
      integration_id ${TEXT} NOT NULL,
      owner ${TEXT} NOT NULL,
      lease_until bigint NOT NULL,
      PRIMARY KEY (environment, integration_id)
    );

    CREATE TABLE faults (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      method ${TEXT},
      path ${TEXT} NOT NULL,
      status integer,
      code ${TEXT},
      retry_after integer,
      delay_ms integer NOT NULL,
      times integer NOT NULL
    );

    CREATE TABLE homologation_calls (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      integration_id ${TEXT} NOT NULL,
      call ${TEXT} NOT NULL
    );
    CREATE INDEX homologation_calls_integration ON homologation_calls(integration_id, seq);

    CREATE TABLE homologation_sessions (
      integration_id ${TEXT} PRIMARY KEY,
      view ${TEXT} NOT NULL
    );

    CREATE TABLE armed_faults (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      integration_id ${TEXT} NOT NULL,
      fault ${TEXT} NOT NULL
    );
    CREATE INDEX armed_faults_integration ON armed_faults(integration_id, id);

    CREATE TABLE seeds (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      seeds ${TEXT} NOT NULL
    );
  `,
};
