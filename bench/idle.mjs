// What an idle team sandbox costs: N emulator processes of the built CLI on a fresh PostgreSQL
// database, nobody calling them, their database round trips counted by the adapter itself
// (MERCHANT_KIT_ROUND_TRIPS) over a measured window: per process, per statement, per second.
// Run by hand after a build, never by `npm test`.
//
//   node bench/idle.mjs --database-url postgres://postgres@127.0.0.1:5432/postgres [--processes 3] [--seconds 60] [--settle 10] [--root DIR] [--json]
//
//   --database-url URL   a PostgreSQL server where the bench may create a database (dropped at the end)
//   --processes N        emulator processes of one sandbox (default 3)
//   --settle S           seconds after the last ready line before measuring (start-up work: default 10)
//   --seconds S          the measured window (default 60)
//   --root DIR           the checkout whose build runs (default this one)
//   --start-args "…"     more `emulator start` flags (after `--port 0 --json --limits off --database-url …`)
//
// Target (issue 25): no statement more often than once a second per process.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { builtCli, describeRoot, splitArgs, startEmulators, UsageError, wholeOption } from './lib/emulators.mjs';
import { stop, stopAll, stopChildrenOnExit } from './lib/processes.mjs';
import { freshDatabase } from './lib/databases.mjs';
import { cpuReading, cpuSpan } from './lib/proc-cpu.mjs';
import { roundTripsFile, roundTripsReading } from './lib/round-trips.mjs';

const HERE = resolve(import.meta.dirname, '..');

function options() {
  // `--start-args "--clock manual"`: its value starts with dashes, which parseArgs takes for a flag.
  const raw = process.argv.slice(2);
  const args = [];
  for (let i = 0; i < raw.length; i++) args.push(raw[i] === '--start-args' && i + 1 < raw.length ? `--start-args=${raw[++i]}` : raw[i]);
  const { values } = parseArgs({
    args,
    options: {
      'database-url': { type: 'string' },
      processes: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '60' },
      settle: { type: 'string', default: '10' },
      root: { type: 'string' },
      'start-args': { type: 'string', default: '' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true };
  const int = (name, min) => wholeOption(values, name, min);
  if (!values['database-url'] || !/^postgres(ql)?:\/\//.test(values['database-url'])) {
    throw new UsageError('--database-url takes a postgres:// URL of a server where the bench may create a database');
  }
  const o = {
    databaseUrl: values['database-url'],
    processes: int('processes', 1),
    seconds: int('seconds', 1),
    settle: int('settle', 0),
    root: resolve(values.root ?? HERE),
    startArgs: splitArgs(values['start-args']),
    json: values.json,
  };
  builtCli(o.root);
  return o;
}

const USAGE = 'Usage: node bench/idle.mjs --database-url SERVER_URL [--processes 3] [--seconds 60] [--settle 10] [--root DIR] [--start-args "…"] [--json]';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const per = (n, s) => Math.round((n / s) * 1000) / 1000;

async function main() {
  // `npm run bench` runs every benchmark with no flags: this one needs a server, and says so.
  if (process.argv.length === 2) return console.log('idle: measures a sandbox on PostgreSQL: give --database-url SERVER_URL (nothing measured)');
  const o = options();
  if (o.help) return console.log(USAGE);
  const log = o.json ? (line) => process.stderr.write(`${line}\n`) : console.log;
  stopChildrenOnExit();
  const database = await freshDatabase(o.databaseUrl);
  const files = Array.from({ length: o.processes }, () => roundTripsFile());
  log(`starting ${o.processes} emulator process(es) of ${describeRoot(o.root)} on a fresh database ${database.name}…`);
  const started = await startEmulators({
    root: o.root, processes: o.processes, startArgs: ['--database-url', database.url, ...o.startArgs], env: (i) => ({ MERCHANT_KIT_ROUND_TRIPS: files[i] }),
  });
  log(`settling ${o.settle} s, then measuring ${o.seconds} s of idleness…`);
  await sleep(o.settle * 1000);
  const before = roundTripsReading(files);
  const cpuBefore = cpuReading(started.pids, { postgres: true, databases: [database.name] });
  await sleep(o.seconds * 1000);
  // The counters are written every second: wait for a write after the window's end.
  await sleep(1200);
  const after = roundTripsReading(files);
  const cpu = cpuSpan(cpuBefore, cpuReading(started.pids, { postgres: true, databases: [database.name] }));
  const processes = after.map((a, i) => {
    const b = before[i];
    const seconds = (a.at - b.at) / 1000;
    const statements = Object.entries(a.background).map(([label, c]) => {
      const trips = c.trips - (b.background[label]?.trips ?? 0);
      const sent = c.statements - (b.background[label]?.statements ?? 0);
      return { label, trips, per_second: per(trips, seconds), statements: sent };
    }).filter((s) => s.trips > 0 || s.statements > 0).sort((x, y) => y.trips - x.trips);
    const requests = Object.values(a.requests).reduce((n, c) => n + c.requests, 0) - Object.values(b.requests).reduce((n, c) => n + c.requests, 0);
    const trips = statements.reduce((n, s) => n + s.trips, 0);
    return { pid: started.pids[i], seconds, requests, trips, per_second: per(trips, seconds), statements, cpu_share: cpu.processes[i] };
  });
  const worst = Math.max(0, ...processes.flatMap((p) => p.statements.map((s) => s.per_second)));
  const results = { processes: o.processes, seconds: o.seconds, postgres_cpu_share: cpu.postgres, worst_statement_per_second: worst, target_met: worst <= 1, per_process: processes };
  await stop(started.children);
  await database.drop();
  if (o.json) return console.log(JSON.stringify(results, null, 2));
  for (const p of processes) {
    console.log(`\nprocess ${p.pid}: ${p.trips} round trips in ${p.seconds.toFixed(1)} s = ${p.per_second}/s · CPU ${(p.cpu_share * 100).toFixed(2)} % of a core${p.requests ? ` · ${p.requests} requests (not idle!)` : ''}`);
    for (const s of p.statements) console.log(`  ${String(s.per_second).padStart(7)}/s  ${s.trips} × ${s.label}`);
  }
  console.log(`\nPostgreSQL (this database's backends): ${(cpu.postgres * 100).toFixed(2)} % of a core`);
  console.log(`most frequent statement of any process: ${worst}/s (target: at most 1/s) — ${worst <= 1 ? 'met' : 'NOT met'}`);
}

try {
  await main();
  await stopAll();
  process.exit(0);
} catch (error) {
  await stopAll();
  const usage = error instanceof UsageError || error?.code?.startsWith?.('ERR_PARSE_ARGS');
  process.stderr.write(`idle: ${error?.message ?? error}\n${usage ? `${USAGE}\n` : ''}`);
  process.exit(usage ? 2 : 1);
}
