// The mixed benchmark's figures: per run (printRun), per configuration as medians of its rounds,
// ratios to the bare baseline, B against A for --compare, the scaling over process counts, and a
// sentence on what limited each run (summarize, printSummary).
import { availableParallelism } from 'node:os';
import { median } from './child.mjs';
import { printRoundTrips, roundTripsFigures } from './round-trips.mjs';
import { printStatements } from './pg-statements.mjs';

const cores = availableParallelism();
const fmt = (n) => (n === null || n === undefined || Number.isNaN(n) ? '-' : Math.round(n).toLocaleString('en-US'));
const ms = (n) => (n === null || n === undefined ? '-' : n.toFixed(1));
const pct = (share) => (share === null || share === undefined ? '-' : `${Math.round(share * 100)} %`);
const round3 = (x) => (x === null || x === undefined ? null : Math.round(x * 1000) / 1000);
const sum = (xs) => (xs.some((x) => x === null) ? null : xs.reduce((a, b) => a + b, 0));

/** Figures derived from a run's raw readings: CPU shares and CPU per request. */
function derive(run) {
  const cpu = run.cpu ?? {};
  const shares = cpu.processes ?? [];
  const micros = cpu.processes_cpu_micros ?? [];
  const total = shares.length ? sum(shares) : null;
  return {
    emulator_cpu: round3(total), // share of one core, all processes together
    emulator_cpu_each: shares.map(round3),
    cpu_us_per_request: micros.length && sum(micros) !== null && run.requests ? round3(sum(micros) / run.requests) : null,
    bench_cpu: round3(cpu.bench ?? null),
    postgres_cpu: round3(cpu.postgres ?? null),
    // PostgreSQL's own CPU (this database's backends) per request answered.
    pg_us_per_request: cpu.postgres_cpu_micros !== null && cpu.postgres_cpu_micros !== undefined && run.requests ? round3(cpu.postgres_cpu_micros / run.requests) : null,
    machine_busy: round3(cpu.machine ?? null),
  };
}

/** What limited a run, from its CPU readings (shares of one core; the machine's of all cores). */
export function limitText(run, connections) {
  const d = derive(run);
  const said = [];
  if (d.machine_busy !== null && d.machine_busy >= 0.9) {
    const of = (share) => (share === null ? '-' : `${Math.round((share / cores) * 100)} %`);
    const known = (d.emulator_cpu ?? 0) + (d.bench_cpu ?? 0) + (d.postgres_cpu ?? 0);
    said.push(
      `the machine's ${cores} cores are full (${pct(d.machine_busy)} busy: emulators ${of(d.emulator_cpu)}, bench ${of(d.bench_cpu)}` +
        `${d.postgres_cpu !== null ? `, postgres ${of(d.postgres_cpu)}` : ''}, other work ${of(Math.max(0, d.machine_busy * cores - known))} of all cores)`,
    );
  }
  const busy = d.emulator_cpu_each.filter((s) => s !== null && s >= 0.85);
  if (busy.length) said.push(`${busy.length} of ${d.emulator_cpu_each.length} emulator process(es) near a full core (${d.emulator_cpu_each.map(pct).join(', ')}): one JavaScript thread each`);
  if (d.bench_cpu !== null && d.bench_cpu >= 0.85) said.push(`the bench's own process is near a full core (${pct(d.bench_cpu)}): the load generator limits the figure too`);
  if (!said.length && d.machine_busy !== null) said.push(`no CPU ceiling reached (machine ${pct(d.machine_busy)} busy): latency-bound at ${connections} connections, or waiting on I/O`);
  return said.join('; ') || 'unknown (no /proc readings)';
}

export function printRun(x, run, { round, repeat }) {
  const d = derive(run);
  const head = `${x.config.label}${repeat > 1 ? `, round ${round + 1}/${repeat}` : ''}`;
  const ratio = run.ratio_to_bare !== undefined ? ` · ${pct(run.ratio_to_bare)} of bare` : '';
  console.log(`\n${head}`);
  console.log(`  ${fmt(run.requests)} requests in ${run.seconds.toFixed(1)} s = ${fmt(run.rps)} req/s${ratio} · p50 ${ms(run.p50_ms)} ms · p99 ${ms(run.p99_ms)} ms · max ${ms(run.max_ms)} ms · errors ${fmt(run.errors)}`);
  console.log(`  by kind: ${Object.entries(run.kinds).map(([k, v]) => `${k} ${fmt(v.requests)} (p50 ${ms(v.p50_ms)}, p99 ${ms(v.p99_ms)} ms)`).join(' · ')}`);
  if (run.feed_events_per_page !== null) console.log(`  feed readers: ${fmt(run.feed_events_per_second)} events/s read, ${run.feed_events_per_page} a page`);
  if (run.feed_events !== undefined) {
    console.log(
      `  webhooks: ${fmt(run.deliveries_window)} deliveries in the window = ${fmt(run.deliveries_per_second)}/s · order.created after ` +
        `p50 ${ms(run.delivery_p50_ms)} ms, p99 ${ms(run.delivery_p99_ms)} ms (${fmt(run.delivery_samples)} orders) · undelivered ${run.undelivered} · ` +
        `duplicates ${run.duplicate_deliveries} · bad signatures ${run.bad_signatures} · feed ${fmt(run.feed_events)} new events, ${run.feed_listed_twice ? `${run.feed_listed_twice} listed twice` : 'none listed twice'}`,
    );
  }
  console.log(
    `  CPU: emulator ${pct(d.emulator_cpu)} of a core (${d.emulator_cpu_each.length || '-'} process(es)) = ${ms(d.cpu_us_per_request)} µs/request · ` +
      `bench ${pct(d.bench_cpu)}${d.postgres_cpu !== null ? ` · postgres ${pct(d.postgres_cpu)} = ${ms(d.pg_us_per_request)} µs/request` : ''} · machine ${pct(d.machine_busy)} of ${cores} cores`,
  );
  printRoundTrips(roundTripsFigures(run.round_trips));
  if (run.statements_missing) console.log(`  ${run.statements_missing}`);
  printStatements(run.statements);
  for (const [key, n] of Object.entries(run.errors_by_kind)) console.log(`  error: ${key} ×${n}`);
  for (const [kind, n] of Object.entries(run.fallbacks)) console.log(`  fallback: ${kind} ×${n} (no order waiting for it: a read instead)`);
  if (run.undelivered) console.log(`  WARNING: ${run.undelivered} event(s) of the feed were not delivered within the drain time`);
  if (run.feed_listed_twice) console.log(`  WARNING: the feed listed ${run.feed_listed_twice} event(s) twice`);
  console.log(`  limit: ${run.limit}`);
}

/** Medians per configuration, ratios, comparison and scaling, as the JSON and the summary show them. */
export function summarize(targets, o) {
  const bare = targets.find((x) => x.bare);
  const configs = targets.map((x) => {
    const runs = x.runs.map((r) => ({ ...r, ...derive(r) }));
    const m = (key) => {
      const xs = runs.map((r) => r[key]).filter((v) => v !== null && v !== undefined);
      return xs.length ? median(xs) : null;
    };
    return {
      label: x.config.label,
      backend: x.config.backend,
      processes: x.config.processes,
      commit: x.config.commit ?? null,
      setup_ms: x.setup ?? null,
      median: {
        rps: m('rps'), p50_ms: m('p50_ms'), p99_ms: m('p99_ms'), errors: runs.reduce((n, r) => n + r.errors, 0),
        deliveries_per_second: m('deliveries_per_second'), delivery_p99_ms: m('delivery_p99_ms'),
        undelivered: runs.reduce((n, r) => n + (r.undelivered ?? 0), 0),
        emulator_cpu: m('emulator_cpu'), cpu_us_per_request: m('cpu_us_per_request'), bench_cpu: m('bench_cpu'),
        postgres_cpu: m('postgres_cpu'), pg_us_per_request: m('pg_us_per_request'), machine_busy: m('machine_busy'), ratio_to_bare: round3(m('ratio_to_bare')),
      },
      // The last round's (a --round-trips run): per route, and what no request made.
      round_trips: roundTripsFigures(x.runs.at(-1)?.round_trips ?? null),
      runs: runs.map(({ round_trips: _trips, ...r }) => r),
    };
  });
  const real = configs.filter((c) => c.backend !== 'bare');
  const results = {
    node: process.version,
    cores,
    mix: o.mix,
    connections: o.connections,
    duration_s: o.duration,
    warmup_s: o.warmup,
    repeat: o.repeat,
    baseline: bare ? 'bare fastify' : null,
    configs,
  };
  if (o.compare && real.length === 2) {
    const [a, b] = real;
    // Per round, so that both builds meet the same moment of the machine.
    const perRound = (key) => median(a.runs.map((r, i) => (b.runs[i]?.[key] ?? null) / r[key]).filter((v) => Number.isFinite(v)));
    results.comparison = {
      a: a.label,
      b: b.label,
      b_over_a_rps: round3(perRound('rps')),
      b_over_a_cpu_per_request: a.runs[0]?.cpu_us_per_request ? round3(perRound('cpu_us_per_request')) : null,
      ratio_to_bare: { a: a.median.ratio_to_bare, b: b.median.ratio_to_bare },
    };
  }
  if (o.backends && o.backends.length === 2) {
    // PostgreSQL against SQLite, build by build, per round (both met the same moment of the machine).
    results.backends = [];
    for (const commit of [...new Set(real.map((c) => c.commit))]) {
      const lite = real.find((c) => c.commit === commit && c.backend.startsWith('sqlite'));
      const pg = real.find((c) => c.commit === commit && c.backend === 'postgres');
      if (!lite || !pg) continue;
      const perRound = (key) => median(lite.runs.map((r, i) => (pg.runs[i]?.[key] ?? null) / r[key]).filter((v) => Number.isFinite(v)));
      results.backends.push({
        commit,
        postgres_over_sqlite_rps: round3(perRound('rps')),
        postgres_over_sqlite_cpu_per_request: round3(perRound('cpu_us_per_request')),
        sqlite_cpu_us_per_request: lite.median.cpu_us_per_request,
        postgres_cpu_us_per_request: pg.median.cpu_us_per_request,
        postgres_own_cpu_us_per_request: pg.median.pg_us_per_request,
      });
    }
  }
  const counts = [...new Set(real.map((c) => c.processes))];
  if (counts.length > 1) {
    const one = real.find((c) => c.processes === Math.min(...counts));
    results.scaling = real.map((c) => ({ processes: c.processes, rps: c.median.rps, of_first: round3(c.median.rps / one.median.rps), limit: c.runs.at(-1)?.limit }));
  }
  return results;
}

export function printSummary(results) {
  const pg = results.configs.some((c) => c.median.postgres_cpu !== null);
  const rows = results.configs.map((c) => {
    const m = c.median;
    return [
      c.label, fmt(m.rps), ms(m.p50_ms), ms(m.p99_ms), fmt(m.errors),
      c.backend === 'bare' ? '-' : fmt(m.deliveries_per_second), c.backend === 'bare' ? '-' : ms(m.delivery_p99_ms),
      pct(m.emulator_cpu), ms(m.cpu_us_per_request), pct(m.bench_cpu), ...(pg ? [pct(m.postgres_cpu), ms(m.pg_us_per_request)] : []), pct(m.machine_busy),
      m.ratio_to_bare === null ? '-' : pct(m.ratio_to_bare),
    ];
  });
  const header = ['configuration', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'deliv/s', 'deliv p99', 'emu CPU', 'µs/req', 'bench CPU', ...(pg ? ['pg CPU', 'pg µs/req'] : []), 'machine', 'vs bare'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${results.repeat > 1 ? `medians of ${results.repeat} rounds` : 'summary'} (${results.connections} connections, ${results.duration_s} s each, ${results.cores} cores; CPU as a share of one core, machine of all cores)`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  if (results.comparison) {
    const c = results.comparison;
    console.log(
      `\n${c.b} against ${c.a}: ${pct(c.b_over_a_rps)} of its req/s (median of the rounds' ratios)` +
        `${c.b_over_a_cpu_per_request ? `, ${pct(c.b_over_a_cpu_per_request)} of its emulator CPU per request` : ''}; ` +
        `ratio to bare ${pct(c.ratio_to_bare.a)} (A) and ${pct(c.ratio_to_bare.b)} (B)`,
    );
  }
  for (const b of results.backends ?? []) {
    console.log(
      `\npostgres against sqlite @${b.commit}: ${pct(b.postgres_over_sqlite_rps)} of its req/s, ${b.postgres_over_sqlite_cpu_per_request === null ? '-' : `${b.postgres_over_sqlite_cpu_per_request.toFixed(2)}×`} its emulator CPU per request ` +
        `(medians of the rounds' ratios; ${ms(b.postgres_cpu_us_per_request)} against ${ms(b.sqlite_cpu_us_per_request)} µs), PostgreSQL's own ${ms(b.postgres_own_cpu_us_per_request)} µs per request`,
    );
  }
  if (results.scaling) {
    console.log('\nscaling:');
    for (const s of results.scaling) console.log(`  ${s.processes} process(es): ${fmt(s.rps)} req/s = ${s.of_first.toFixed(2)}× · limit: ${s.limit}`);
  }
}
