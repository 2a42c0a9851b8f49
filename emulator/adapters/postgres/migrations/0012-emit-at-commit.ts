import type { PgMigration } from './index.js';

// issue 25 (tenth step): an emit's events take their feed positions in the statements sent with the
// COMMIT (events.ts `emitWrites`), and the targets the emit read before (without the counter's lock)
// are checked again there. When an integration or its webhook changed in between, the writes fail as
// a serialization failure (40001) and the unit of work runs again with the targets as they are now:
// the check needs a way to raise from a statement, which plain SQL has not. No table or column
// changed: bundles of the previous version restore as they are.
export const emitAtCommit: PgMigration = {
  version: 12,
  name: 'emit-at-commit',
  env: `
    CREATE OR REPLACE FUNCTION targets_unchanged(read text, current text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF read IS DISTINCT FROM current THEN
          RAISE EXCEPTION 'the integrations of an event changed while it was written' USING ERRCODE = '40001';
        END IF;
        RETURN true;
      END
    $$;
  `,
};
