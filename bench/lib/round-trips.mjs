// Database round trips counted by the emulators themselves (the PostgreSQL adapter's counter): an
// emulator started with MERCHANT_KIT_ROUND_TRIPS=FILE rewrites FILE every second (and when it
// stops) with its running totals, per route of the requests that made them and, for what no
// request made (webhook deliveries, sweeps, leases), per statement. A reading is every file at one
// moment; a span is what happened between two readings.
//
// FILE: { "at": ms, "requests": { "GET /sandbox/v1/orders/:order_id": { "requests", "trips", "statements" } },
//         "background": { "<statement>": { "trips", "statements" } } }
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeOnExit } from './processes.mjs';

let folder = null;
let files = 0;

/** A fresh file name for one emulator process's counter (its folder removed when the bench ends). */
export function roundTripsFile() {
  if (!folder) {
    folder = mkdtempSync(join(tmpdir(), 'merchant-kit-trips-'));
    removeOnExit(folder);
  }
  return join(folder, `process-${++files}.json`);
}

/** The counters of every process, as last written (null without counters; a process not written yet counts zero). */
export function roundTripsReading(paths) {
  if (!paths) return null;
  return paths.map((path) => {
    if (!existsSync(path)) return { at: Date.now(), requests: {}, background: {} };
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return { at: Date.now(), requests: {}, background: {} }; // caught mid-write: the next second's
    }
  });
}

const minus = (a = {}, b = {}) => Object.fromEntries(Object.keys(a).map((k) => [k, (a[k] ?? 0) - (b[k] ?? 0)]));

/** What every process counted between two readings, added up: per route and per background statement, with the seconds it spans. */
export function roundTripsSpan(before, after) {
  if (!before || !after) return null;
  const requests = {};
  const background = {};
  let seconds = 0;
  after.forEach((a, i) => {
    const b = before[i];
    seconds = Math.max(seconds, (a.at - b.at) / 1000);
    for (const [route, counts] of Object.entries(a.requests)) {
      const d = minus(counts, b.requests[route]);
      if (!d.requests && !d.trips) continue;
      const sum = (requests[route] ??= { requests: 0, trips: 0, statements: 0 });
      for (const k of Object.keys(sum)) sum[k] += d[k] ?? 0;
    }
    for (const [label, counts] of Object.entries(a.background)) {
      const d = minus(counts, b.background[label]);
      if (!d.trips && !d.statements) continue;
      const sum = (background[label] ??= { trips: 0, statements: 0 });
      sum.trips += d.trips ?? 0;
      sum.statements += d.statements ?? 0;
    }
  });
  return { seconds, processes: after.length, requests, background };
}

const per = (n, d) => (d ? Math.round((n / d) * 100) / 100 : null);

/** The span as per-request figures: round trips and statements per request of each route, background per second. */
export function roundTripsFigures(span) {
  if (!span) return null;
  const routes = Object.entries(span.requests)
    .sort((a, b) => b[1].requests - a[1].requests)
    .map(([route, c]) => ({ route, requests: c.requests, trips_per_request: per(c.trips, c.requests), statements_per_request: per(c.statements, c.requests) }));
  const totalRequests = routes.reduce((n, r) => n + r.requests, 0);
  const bg = Object.entries(span.background).sort((a, b) => b[1].trips - a[1].trips);
  const bgTrips = bg.reduce((n, [, c]) => n + c.trips, 0);
  const bgStatements = bg.reduce((n, [, c]) => n + c.statements, 0);
  return {
    seconds: span.seconds,
    routes,
    background: {
      trips_per_second: per(bgTrips, span.seconds),
      trips_per_request: per(bgTrips, totalRequests),
      statements_per_request: per(bgStatements, totalRequests),
      by_statement: bg.map(([label, c]) => ({ label, trips_per_second: per(c.trips, span.seconds), statements_per_second: per(c.statements, span.seconds) })),
    },
  };
}

export function printRoundTrips(figures, { top = 8 } = {}) {
  if (!figures) return;
  console.log(`  round trips (the adapter's counter, ${figures.seconds.toFixed(1)} s): per request of each route, round trips · statements`);
  for (const r of figures.routes) console.log(`    ${r.route.padEnd(44)} ${String(r.requests).padStart(7)} requests  ${String(r.trips_per_request).padStart(6)} · ${r.statements_per_request}`);
  const b = figures.background;
  console.log(`    not made by a request (deliveries, sweeps, leases): ${b.trips_per_second}/s = ${b.trips_per_request} round trips · ${b.statements_per_request} statements per request`);
  for (const s of b.by_statement.slice(0, top)) console.log(`      ${String(s.trips_per_second).padStart(8)}/s  ${s.label}`);
}
