import type { Migration } from './index.js';

// DESIGN: The operator's public test environment — an integrator's request for a test store. In the
// environment's database, beside the stores an approval makes (used in the test environment only): a
// reset empties it with them, a bundle carries it. The claim secret is kept as its digest; an
// approval's credential and store token wait sealed to `seal_key` until the integrator's first read.
export const accessRequests: Migration = {
  version: 8,
  name: 'access-requests',
  up: `
    CREATE TABLE access_requests (
      id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      company TEXT NOT NULL,
      contact_email TEXT NOT NULL,
      system TEXT NOT NULL,
      claim_sha256 BLOB NOT NULL,
      seal_key BLOB NOT NULL,
      reason TEXT,
      store_id TEXT,
      integration_id TEXT,
      sealed BLOB,
      created_at INTEGER NOT NULL,
      decided_at INTEGER,
      handed_over_at INTEGER
    ) STRICT;
    CREATE INDEX access_requests_status ON access_requests(status, created_at);
  `,
};
