import { ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// DESIGN: The operator's public test environment. `env`: an integrator's access requests, beside the
// stores an approval makes (the SQLite adapter's table, column for column). `shared`: the certificates'
// ledger — the signing keys and the certificates issued — the sandbox's, for every process, outside its
// environments: no reset or restore touches it and no bundle holds it.
export const accessRequests: PgMigration = {
  version: 8,
  name: 'access-requests',
  env: `
    CREATE TABLE access_requests (
      id ${TEXT} PRIMARY KEY,
      status ${TEXT} NOT NULL,
      company ${TEXT} NOT NULL,
      contact_email ${TEXT} NOT NULL,
      system ${TEXT} NOT NULL,
      claim_sha256 bytea NOT NULL,
      seal_key bytea NOT NULL,
      reason ${TEXT},
      store_id ${TEXT},
      integration_id ${TEXT},
      sealed bytea,
      created_at bigint NOT NULL,
      decided_at bigint,
      handed_over_at bigint,
      ${ROWID}
    );
    CREATE INDEX access_requests_status ON access_requests(status, created_at);
  `,
  shared: `
    -- One key signs (retired_at NULL); the retired ones stay published.
    CREATE TABLE signing_keys (
      kid ${TEXT} PRIMARY KEY,
      private_key bytea NOT NULL,
      x ${TEXT} NOT NULL,
      created_at bigint NOT NULL,
      retired_at bigint
    );
    CREATE UNIQUE INDEX signing_keys_current ON signing_keys ((true)) WHERE retired_at IS NULL;

    -- One certificate per observed session.
    CREATE TABLE certificates (
      id ${TEXT} PRIMARY KEY,
      integration_id ${TEXT} NOT NULL,
      store_id ${TEXT} NOT NULL,
      system ${TEXT} NOT NULL,
      environment ${TEXT} NOT NULL,
      session_started_at bigint NOT NULL,
      kid ${TEXT} NOT NULL,
      jws ${TEXT} NOT NULL,
      report ${TEXT} NOT NULL,
      report_sha256 ${TEXT} NOT NULL,
      issued_at bigint NOT NULL,
      revoked_at bigint,
      UNIQUE (integration_id, session_started_at)
    );
    CREATE INDEX certificates_issued ON certificates(issued_at);
  `,
};
