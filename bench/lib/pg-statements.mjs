// PostgreSQL's side of a run, per statement (`--statements`, issue 25): what pg_stat_statements
// counted for the bench's database between the two readings of the measured window — calls, time
// in the server (executing and planning), rows, shared blocks hit and dirtied, WAL — with the
// database's transactions from pg_stat_database. Needs the extension on the server
// (`shared_preload_libraries = pg_stat_statements`, `CREATE EXTENSION pg_stat_statements` in the
// database the URL names; `pg_stat_statements.track_planning = on` for the planning times). The
// times are the server's wall clock: on a busy machine they include waiting for a core and for
// locks, so they rank statements, while CPU is /proc's (the CPU line).
import pg from 'pg';

const COLUMNS = `s.queryid::text AS id, s.query, s.calls::float8 AS calls, s.total_exec_time AS exec_ms, s.total_plan_time AS plan_ms, s.plans::float8 AS plans,
  s.rows::float8 AS rows, s.shared_blks_hit::float8 AS hit, s.shared_blks_read::float8 AS read, s.shared_blks_dirtied::float8 AS dirtied, s.wal_bytes::float8 AS wal`;

/** A reader of the statements of `databases` on the server of `serverUrl`; null readings when the extension is not there (said once). */
export function statementsReader(serverUrl, databases) {
  let client = null;
  let missing = null;
  const read = async () => {
    if (missing) return null;
    try {
      if (!client) {
        client = new pg.Client({ connectionString: serverUrl, application_name: 'merchant-kit-bench' });
        await client.connect();
      }
      const statements = await client.query(`SELECT ${COLUMNS} FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ANY($1)`, [databases]);
      // The next transaction id (read without taking one) and the WAL written: the whole server's, so
      // they are the bench's own on a server of its own only.
      const server = await client.query(
        `SELECT (SELECT sum(xact_commit)::float8 FROM pg_stat_database WHERE datname = ANY($1)) AS commits,
           (SELECT sum(xact_rollback)::float8 FROM pg_stat_database WHERE datname = ANY($1)) AS rollbacks,
           txid_snapshot_xmax(txid_current_snapshot())::float8 AS next_xid, w.wal_records::float8 AS wal_records, w.wal_bytes::float8 AS wal_bytes
         FROM pg_stat_wal w`,
        [databases],
      );
      return { statements: statements.rows, ...server.rows[0] };
    } catch (error) {
      missing = `no per-statement figures: ${error.message} (see bench/README.md, "seventh step")`;
      return null;
    }
  };
  return {
    read,
    get missing() {
      return missing;
    },
    async close() {
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}

/** What happened between two readings, per statement (busiest first), with totals; null without both readings. */
export function statementsSpan(before, after, requests) {
  if (!before || !after || !requests) return null;
  const was = new Map(before.statements.map((s) => [s.id, s]));
  const keys = ['calls', 'exec_ms', 'plan_ms', 'plans', 'rows', 'hit', 'read', 'dirtied', 'wal'];
  const rows = [];
  for (const s of after.statements) {
    const b = was.get(s.id);
    const d = Object.fromEntries(keys.map((k) => [k, s[k] - (b?.[k] ?? 0)]));
    if (d.calls <= 0) continue;
    rows.push({ query: s.query.replace(/\s+/g, ' ').trim(), ...d });
  }
  rows.sort((x, y) => y.exec_ms + y.plan_ms - (x.exec_ms + x.plan_ms));
  const total = (k) => rows.reduce((a, r) => a + r[k], 0);
  // The statements of a transaction block (BEGIN, COMMIT) are counted like the others; statements within a
  // simple query's text (a COMMIT carrying writes) are counted one by one.
  return {
    requests,
    statements_per_request: total('calls') / requests,
    commits_per_request: (after.commits - before.commits) / requests,
    rollbacks_per_request: (after.rollbacks - before.rollbacks) / requests,
    server_ms_per_request: (total('exec_ms') + total('plan_ms')) / requests,
    wal_bytes_per_request: total('wal') / requests,
    server_xids_per_request: (after.next_xid - before.next_xid) / requests,
    server_wal_records_per_request: (after.wal_records - before.wal_records) / requests,
    server_wal_bytes_per_request: (after.wal_bytes - before.wal_bytes) / requests,
    blocks_hit_per_request: total('hit') / requests,
    statements: rows.map((r) => ({
      query: r.query,
      calls_per_request: r.calls / requests,
      exec_us_per_call: (r.exec_ms * 1000) / r.calls,
      plans_per_call: r.plans / r.calls,
      plan_us_per_call: r.plans ? (r.plan_ms * 1000) / r.calls : 0,
      share_of_time: (r.exec_ms + r.plan_ms) / Math.max(1e-9, total('exec_ms') + total('plan_ms')),
      rows_per_call: r.rows / r.calls,
      blocks_hit_per_call: r.hit / r.calls,
      blocks_dirtied_per_request: r.dirtied / requests,
      wal_bytes_per_request: r.wal / requests,
    })),
  };
}

const f1 = (n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2));

/** The span as lines: the totals, then the `top` busiest statements (their text cut to `width`). */
export function printStatements(span, { top = 15, width = 110 } = {}) {
  if (!span) return;
  console.log(
    `  PostgreSQL per request: ${span.statements_per_request.toFixed(2)} statements, ${span.commits_per_request.toFixed(2)} commits` +
      `${span.rollbacks_per_request >= 0.005 ? ` + ${span.rollbacks_per_request.toFixed(2)} rollbacks` : ''}, ${f1(span.server_ms_per_request * 1000)} µs in the server (wall), ` +
      `${f1(span.blocks_hit_per_request)} shared blocks hit, ${f1(span.wal_bytes_per_request)} WAL bytes`,
  );
  console.log(
    `  the whole server per request (the bench's own on a server of its own): ${span.server_xids_per_request.toFixed(2)} transaction ids, ` +
      `${span.server_wal_records_per_request.toFixed(2)} WAL records, ${f1(span.server_wal_bytes_per_request)} WAL bytes`,
  );
  console.log('    share  calls/req  exec µs/call  plans/call  plan µs/call  rows/call  hit/call  dirtied/req  WAL B/req  statement');
  for (const s of span.statements.slice(0, top)) {
    console.log(
      `    ${`${Math.round(s.share_of_time * 100)} %`.padStart(5)}  ${s.calls_per_request.toFixed(3).padStart(9)}  ${f1(s.exec_us_per_call).padStart(12)}  ` +
        `${s.plans_per_call.toFixed(2).padStart(10)}  ${f1(s.plan_us_per_call).padStart(12)}  ${f1(s.rows_per_call).padStart(9)}  ${f1(s.blocks_hit_per_call).padStart(8)}  ` +
        `${s.blocks_dirtied_per_request.toFixed(3).padStart(11)}  ${f1(s.wal_bytes_per_request).padStart(9)}  ${s.query.slice(0, width)}`,
    );
  }
}
