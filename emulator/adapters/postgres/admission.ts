import type { Environment } from '../../../src/contract/store.js';
import { fixedWindow } from '../../clock.js';
import type { Admission, Admissions, AdmitRequest } from '../../store/port.js';
import { WINDOW_LIMITS } from '../../store/coordination.js';
import { statement, tableIn, type Conn, type Statement } from './conn.js';
import { AUTH_RECORD_COLUMNS, authRecordsFrom, authRecordsOf } from './stores.js';
import { orderWithHistoryColumns, orderWithHistoryOf } from './orders.js';
import { HIT_ON_CONFLICT } from './windows.js';
import type { SharedRow, SharedRowValues } from './sandbox.js';
import type { SchemaNames } from './schema.js';

/**
 * An API request's admission in one statement (issue 25; the port's Admissions, store/port.ts): the shared row
 * (with the sandbox's time computed from its clock, so the windows and the expiry are judged at the
 * time every process shares), the IP's authentication failures, the credential's records, the
 * request hit (a data-modifying CTE, counted only when the request will be admitted: no fault
 * exists, the IP is not blocked, the digest of the presented secret is the stored one, the credential
 * is neither revoked nor expired) and GET /orders/{id}'s order with its history. Nothing is kept
 * between requests: every answer is the database's as of this statement, so a write acknowledged on
 * any process is seen here.
 */
export function pgAdmissions(conn: Conn, names: SchemaNames, shared: SharedRow): Admissions {
  const statements = Object.fromEntries(
    (Object.keys(names.env) as Environment[]).map((environment) => [environment, admitStatement(names, names.env[environment])]),
  ) as Record<Environment, Statement>;
  return {
    async admit(request: AdmitRequest): Promise<Admission> {
      const [row] = await conn.rows<Row>(statements[request.environment], [
        request.realNow, request.now, request.limits, request.ip, request.credential?.keyId ?? null, request.credential?.digest ?? null,
        request.orderId, WINDOW_LIMITS.auth_failures,
      ]);
      const r = row!;
      const state = shared.adopt(r);
      const limit = WINDOW_LIMITS.requests;
      return {
        shared: state,
        blocked: r.blocked,
        records: r.c_keyId === null ? undefined : authRecordsOf(r as unknown as Record<string, unknown>),
        hit:
          r.hitCount === null
            ? null
            : { allowed: r.hitCount <= limit, remaining: Math.max(0, limit - r.hitCount), retryAfterSeconds: fixedWindow(r.now).retryAfterSeconds },
        order: r.o_id === null ? undefined : orderWithHistoryOf(r as unknown as Record<string, unknown>, 'o_'),
      };
    },
  };
}

interface Row extends SharedRowValues {
  now: number;
  blocked: boolean | null;
  c_keyId: string | null;
  hitCount: number | null;
  o_id: string | null;
}

function admitStatement(names: SchemaNames, schema: string): Statement {
  const sh = tableIn(names.shared);
  const env = tableIn(schema);
  // $1 real time, $2 this process's time, $3 limits on, $4 IP, $5 key id, $6 secret digest, $7 order id, $8 auth-failure allowance.
  return statement(
    `WITH st AS (
       SELECT generation, clock_mode AS "clockMode", clock_offset_ms AS "clockOffsetMs", clock_frozen_at AS "clockFrozenAt", chaos,
         EXISTS (SELECT 1 FROM ${sh('faults')}) AS faults, EXISTS (SELECT 1 FROM ${sh('armed_faults')}) AS armed,
         CASE WHEN clock_mode IS NULL THEN $2::bigint
              WHEN clock_mode = 'manual' THEN COALESCE(clock_frozen_at, $1::bigint) + COALESCE(clock_offset_ms, 0)
              ELSE $1::bigint + COALESCE(clock_offset_ms, 0) END AS now
       FROM ${sh('sandbox_state')}
     ), n AS (
       SELECT st.*, st.now / 60000 * 60000 AS window_start,
         CASE WHEN $3::boolean THEN COALESCE((SELECT w.count FROM ${sh('rate_windows')} w
           WHERE w.kind = 'auth_failures' AND w.key = $4::text AND w.window_start = st.now / 60000 * 60000), 0) >= $8::bigint END AS blocked
       FROM st
     ), a AS (
       SELECT ${AUTH_RECORD_COLUMNS} ${authRecordsFrom(schema)} WHERE c.key_id = $5::text
     ), hit AS (
       INSERT INTO ${sh('rate_windows')} AS w (kind, key, window_start, count)
       SELECT 'requests', a."i_id", n.window_start, 1 FROM n, a
       WHERE NOT n.faults AND n.blocked IS NOT TRUE AND a."c_secretSha256" = $6::bytea AND a."c_revokedAt" IS NULL
         AND (a."c_expiresAt" IS NULL OR a."c_expiresAt" > n.now)
       ${HIT_ON_CONFLICT}
       RETURNING count
     )
     SELECT n.generation, n."clockMode", n."clockOffsetMs", n."clockFrozenAt", n.chaos, n.faults, n.armed, n.now, n.blocked, a.*,
       (SELECT count FROM hit) AS "hitCount", ${orderWithHistoryColumns(schema, 'o_')}
     FROM n LEFT JOIN a ON true LEFT JOIN ${env('orders')} o ON o.id = $7::text`,
  );
}
