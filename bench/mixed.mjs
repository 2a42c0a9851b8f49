// Mixed workload benchmark: the built CLI's emulator(s) under a mix of an integrator's calls (order
// and catalog reads, feed paging, acks, status changes) and of customers' orders (the simulator,
// whose webhook deliveries a receiver in this process verifies and times). Run by hand after a
// build (`npx tsup` or `npm run build`), never by `npm test`.
//
//   node bench/mixed.mjs [--processes N] [--start-args "…"] [--root DIR]      emulators of a build
//   node bench/mixed.mjs --url http://127.0.0.1:4010 [--url …]              emulators already running
//   node bench/mixed.mjs --compare BEFORE,AFTER [--repeat 3]                 two builds, alternated
//   node bench/mixed.mjs --backends sqlite,postgres --database-url URL       both storages, alternated
//
//   --processes N        emulator processes (default 1), or counts one after the other (1,2,3:
//                        prints the scaling); N > 1 needs a shared database (--start-args
//                        "--database-url postgres://…" or MERCHANT_KIT_DATABASE_URL): N SQLite
//                        processes would be N separate sandboxes, so it is refused
//   --start-args "…"     more `emulator start` flags, after `--port 0 --json --limits off`; without
//                        --data, --memory or --database-url each process gets a fresh SQLite data
//                        folder, removed at the end; an --admin-token here is used by the bench too
//   --database-url URL   a PostgreSQL server where the bench may create databases: each process
//                        count (and each build of --compare) runs on a fresh database of its own,
//                        dropped when it is done; PostgreSQL's CPU is then that database's backends'
//   --root DIR           the checkout whose bin/merchant-kit.js is run (default: this one; --cwd
//                        is the same)
//   --url URL            target running emulators (repeatable: one sandbox's processes, spread
//                        round-robin); --admin-token T (or MERCHANT_KIT_ADMIN_TOKEN) for their control API;
//                        --pid P (repeatable: the ready lines' pid) to read their CPU time
//   --compare A,B        start the builds of checkouts A and B (same flags) and a bare fastify
//                        baseline; rounds alternate A and B; prints each one's ratio to bare and CPU
//                        per request, and B against A (so: --compare BEFORE,AFTER)
//   --backends LIST      sqlite,postgres: each build once per storage (postgres on a fresh database of
//                        --database-url's server), alternated round by round like --compare (with it:
//                        every build on every storage); prints PostgreSQL against SQLite per build
//   --round-trips        a counting run: each emulator counts its database round trips per route
//                        (MERCHANT_KIT_ROUND_TRIPS, a file per process) and the run prints them per
//                        request kind, with what the processes sent on their own per second; the
//                        counting costs CPU, so this run's CPU figures are not the build's
//   --statements         PostgreSQL's side per statement (pg_stat_statements on the server of
//                        --database-url, for the bench's own database): calls, server time, plans,
//                        rows, blocks and WAL per request over the measured window
//   --bare               add the bare fastify baseline to a normal run
//   --connections C      concurrent connections (default 32), --duration D measured seconds
//                        (default 10) after --warmup W seconds (default 2), --repeat R rounds
//                        (default 1, 3 with --compare)
//   --products P         catalog size (default 200), --orders O simulated orders before the load
//                        (default 300, half of them acknowledged), --drain S seconds to wait for
//                        deliveries after a run (default 15)
//   --mix k=w,…          the mix (default read=8,products=4,feed=3,simulate=1,ack=1,status=3; see
//                        MIX_KINDS in bench/lib/mixed-workload.mjs)
//   --json               results as JSON on stdout (progress on stderr)
//
// Every child process is stopped when the benchmark ends, Ctrl+C included.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuReading, cpuSpan } from './lib/proc-cpu.mjs';
import { printStatements, statementsReader, statementsSpan } from './lib/pg-statements.mjs';
import { backendName, builtCli, describeRoot, sharesDatabase, splitArgs, startEmulators, UsageError, wholeOption } from './lib/emulators.mjs';
import { describeExit, stop, stopAll, stopChildrenOnExit } from './lib/processes.mjs';
import { startReceiver } from './lib/webhook-receiver.mjs';
import { freshDatabase } from './lib/databases.mjs';
import { roundTripsFile, roundTripsReading, roundTripsSpan } from './lib/round-trips.mjs';
import { setUp } from './lib/mixed-setup.mjs';
import { DEFAULT_MIX, parseMix, prime, runMix, settle, Target } from './lib/mixed-workload.mjs';
import { captureBodies, startBare } from './lib/bare-mixed.mjs';
import { limitText, printRun, printSummary, summarize } from './lib/mixed-report.mjs';

const HERE = resolve(import.meta.dirname, '..');

/** `--start-args "--database-url …"`: its value starts with dashes, which parseArgs takes for a flag. */
function argv() {
  const args = process.argv.slice(2);
  const out = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--start-args' && i + 1 < args.length) out.push(`--start-args=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

function options() {
  const { values } = parseArgs({
    args: argv(),
    options: {
      processes: { type: 'string', default: '1' },
      'start-args': { type: 'string', default: '' },
      'database-url': { type: 'string' },
      root: { type: 'string' },
      cwd: { type: 'string' },
      url: { type: 'string', multiple: true, default: [] },
      pid: { type: 'string', multiple: true, default: [] },
      'admin-token': { type: 'string' },
      compare: { type: 'string' },
      backends: { type: 'string' },
      'round-trips': { type: 'boolean', default: false },
      statements: { type: 'boolean', default: false },
      bare: { type: 'boolean', default: false },
      connections: { type: 'string', default: '32' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      repeat: { type: 'string' },
      products: { type: 'string', default: '200' },
      orders: { type: 'string', default: '300' },
      drain: { type: 'string', default: '15' },
      mix: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true };
  const int = (name, min) => wholeOption(values, name, min);
  const o = {
    processes: counts(values.processes),
    startArgs: splitArgs(values['start-args']),
    databaseUrl: values['database-url'] ?? null,
    root: resolve(values.root ?? values.cwd ?? HERE),
    urls: values.url.map((u) => u.replace(/\/+$/, '')),
    pids: values.pid.map((p) => {
      if (!/^[1-9]\d*$/.test(p)) throw new UsageError(`--pid takes a process id (got '${p}')`);
      return Number(p);
    }),
    // The emulators this bench starts with --admin-token need it for their control API too.
    adminToken: values['admin-token'] ?? flagValue(splitArgs(values['start-args']), '--admin-token') ?? process.env.MERCHANT_KIT_ADMIN_TOKEN,
    compare: values.compare ? values.compare.split(',').map((r) => resolve(r.trim())) : null,
    backends: values.backends ? values.backends.split(',').map((b) => b.trim()) : null,
    roundTrips: values['round-trips'],
    statements: values.statements,
    connections: int('connections', 1),
    duration: int('duration', 1),
    warmup: int('warmup', 0),
    repeat: values.repeat === undefined ? (values.compare || values.backends ? 3 : 1) : int('repeat', 1),
    products: int('products', 1),
    orders: int('orders', 2),
    drain: int('drain', 0),
    mix: usage(() => parseMix(values.mix)),
    bare: values.bare || Boolean(values.compare),
    json: values.json,
  };
  if (o.products > 490) throw new UsageError('--products is at most 490 (one batch of 500 operations with the 10 categories)');
  if (o.compare && o.compare.length !== 2) throw new UsageError('--compare takes two checkouts: --compare ROOT_A,ROOT_B');
  if (o.backends) {
    if (o.backends.length < 1 || o.backends.some((b) => b !== 'sqlite' && b !== 'postgres') || new Set(o.backends).size !== o.backends.length) {
      throw new UsageError(`--backends takes sqlite, postgres or both (got '${values.backends}')`);
    }
    if (o.backends.includes('postgres') && !o.databaseUrl) throw new UsageError('--backends postgres needs --database-url SERVER_URL (a fresh database per configuration)');
    if (o.backends.includes('sqlite') && o.processes.some((n) => n > 1)) throw new UsageError('--backends sqlite runs one process (N SQLite processes are N sandboxes)');
    if (o.urls.length) throw new UsageError('--backends starts its own emulators: leave out --url');
  }
  if (o.statements && !o.databaseUrl) throw new UsageError('--statements reads the server of --database-url (the databases this benchmark makes)');
  if (o.roundTrips && o.urls.length) throw new UsageError('--round-trips counts in the emulators this benchmark starts: leave out --url');
  if (o.compare && o.processes.length > 1) throw new UsageError('--compare takes one process count');
  if (o.compare && o.urls.length) throw new UsageError('--compare starts its own emulators: leave out --url');
  if (o.urls.length && (values['start-args'] || values.processes !== '1')) {
    throw new UsageError('--url targets running emulators: --processes and --start-args are for the ones this benchmark starts');
  }
  if (o.pids.length && !o.urls.length) throw new UsageError('--pid names the processes of running emulators given with --url (the ones this benchmark starts are known)');
  if (o.urls.some((u) => !/^https?:\/\/[^/]+$/.test(u))) throw new UsageError('--url takes an emulator\'s base URL, e.g. http://127.0.0.1:4010');
  if (!o.urls.length) for (const root of o.compare ?? [o.root]) builtCli(root);
  if (o.databaseUrl && !/^postgres(ql)?:\/\//.test(o.databaseUrl)) throw new UsageError('--database-url takes a postgres:// URL of a server where the bench may create databases');
  if (o.databaseUrl && (o.urls.length || ['--data', '--memory', '--database-url'].some((f) => o.startArgs.some((a) => a === f || a.startsWith(`${f}=`))))) {
    throw new UsageError('--database-url gives each configuration a fresh database: leave out --url and the storage flags of --start-args');
  }
  if (o.processes.some((n) => n > 1) && !o.databaseUrl && !sharesDatabase(o.startArgs)) {
    throw new UsageError(
      `--processes ${o.processes.join(',')} needs one shared database: N SQLite processes are N separate sandboxes. ` +
        'Give --database-url SERVER_URL (a fresh database per configuration), or --start-args "--database-url postgres://…" (or MERCHANT_KIT_DATABASE_URL).',
    );
  }
  return o;
}

/** The value of `flag` in a list of arguments (`--flag value` or `--flag=value`), or undefined. */
function flagValue(args, flag) {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return args[i] === flag ? args[i + 1] : args[i].slice(flag.length + 1);
}

/** `--processes 1` or `1,2,3` (one stage per count, in that order). */
function counts(text) {
  const list = text.split(',').map((s) => s.trim());
  if (!list.every((n) => /^[1-9]\d*$/.test(n))) throw new UsageError(`--processes takes counts of at least 1, e.g. 1 or 1,2,3 (got '${text}')`);
  return list.map(Number);
}

function usage(parse) {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(error.message);
  }
}

const USAGE = `Usage: node bench/mixed.mjs [--processes N] [--database-url SERVER_URL] [--start-args "…"] [--root DIR] | --url URL… | --compare BEFORE,AFTER
  [--connections 32] [--duration 10] [--warmup 2] [--repeat R] [--products 200] [--orders 300]
  [--drain 15] [--mix ${Object.entries(DEFAULT_MIX).map(([k, w]) => `${k}=${w}`).join(',')}] [--bare] [--round-trips] [--statements] [--admin-token T] [--pid P] [--json]
See the top of bench/mixed.mjs or bench/README.md ("mixed").`;

/** The checkouts (two with --compare) or running URLs of one stage, started and set up. */
async function startStage(o, processes, receiver, adminHeaders, log) {
  const configs = [];
  if (o.urls.length) configs.push({ label: `${o.urls.length} running emulator(s)`, backend: 'running', processes: o.urls.length, urls: o.urls, pids: o.pids, children: [] });
  // Every build (two with --compare) on every storage (two with --backends), in that order.
  const plans = (o.urls.length ? [] : (o.compare ?? [o.root])).flatMap((root) =>
    (o.backends ?? [o.databaseUrl ? 'postgres' : null]).map((backend) => ({ root, backend })),
  );
  for (const { root, backend: chosen } of plans) {
    const commit = describeRoot(root);
    const database = chosen === 'postgres' ? await freshDatabase(o.databaseUrl) : null;
    const startArgs = database ? [...o.startArgs, '--database-url', database.url] : o.startArgs;
    const backend = database ? 'postgres' : chosen === 'sqlite' ? 'sqlite' : backendName(o.startArgs);
    const n = backend.startsWith('sqlite') && o.backends ? 1 : processes;
    log(`starting ${n} emulator process(es) of ${commit} (${root === HERE ? 'this checkout' : root})${database ? ` on a fresh database ${database.name}` : ''}…`);
    const counters = o.roundTrips ? Array.from({ length: n }, () => roundTripsFile()) : null;
    const started = await startEmulators({ root, processes: n, startArgs, env: counters ? (i) => ({ MERCHANT_KIT_ROUND_TRIPS: counters[i] }) : undefined });
    configs.push({ label: `${backend} ×${n} @${commit}`, backend, processes: n, commit, database, counters, ...started });
  }
  const targets = [];
  for (const config of configs) {
    const tag = `${++targetCount}`;
    const hook = receiver.target(tag);
    const made = await setUp({
      urls: config.urls, adminHeaders, webhookUrl: hook.url, deliveries: hook.deliveries,
      products: o.products, orders: o.orders, tag: `${tag}-${Date.now().toString(36)}`, log,
    });
    const t = new Target({ label: config.label, urls: config.urls, credential: made.credential, storeId: made.storeId, orders: made.orders, adminHeaders, deliveries: hook.deliveries, connections: o.connections });
    await prime(t, Math.floor(o.orders / 2));
    targets.push({ config, t, runs: [], after: null, setup: made.timings });
  }
  return targets;
}
let targetCount = 0;

/** The bare fastify baseline, answering the bodies of `from`'s emulator. */
async function startBaseline(from, o) {
  const bodies = await captureBodies(from.t);
  const bare = await startBare(bodies);
  const id = JSON.parse(bodies.simulate).data.id;
  const t = new Target({ label: 'bare fastify', urls: [bare.url], credential: 'bare', storeId: 'bare', orders: [id], connections: o.connections });
  return { config: { label: 'bare fastify', backend: 'bare', processes: 1, pids: [bare.pid], children: [bare.child] }, t, runs: [], bare: true };
}

async function main() {
  const o = options();
  if (o.help) return console.log(USAGE);
  const log = o.json ? (line) => process.stderr.write(`${line}\n`) : console.log;
  const ownBuild = join(HERE, 'dist', 'src', 'index.js');
  if (!existsSync(ownBuild)) throw new UsageError('This checkout is not built (its receiver verifies signatures with dist/): run `npx tsup` or `npm run build` first.');
  const { verify } = await import(ownBuild);
  stopChildrenOnExit();
  const receiver = await startReceiver({ verify });
  const adminHeaders = o.adminToken ? { authorization: `Bearer ${o.adminToken}` } : {};
  const postgres = Boolean(o.databaseUrl) || backendName(o.startArgs) === 'postgres';
  const all = [];
  let baseline = null;
  log(`mix per ${Object.values(o.mix).reduce((a, b) => a + b, 0)} requests: ${Object.entries(o.mix).filter(([, w]) => w).map(([k, w]) => `${k} ${w}`).join(', ')}; ` +
    `${o.connections} connections, ${o.warmup} s warm-up + ${o.duration} s measured, ${o.repeat} round(s); ${availableParallelism()} cores`);
  // One stage per process count, one after the other (the processes of one stage are stopped before
  // the next starts: idle processes on one database would still hear the others' notifications).
  // With --compare one stage holds both builds, alternated round by round.
  for (const processes of o.urls.length ? [o.urls.length] : o.processes) {
    const targets = await startStage(o, processes, receiver, adminHeaders, log);
    if (o.bare && !baseline) {
      baseline = await startBaseline(targets[0], o);
      all.push(baseline);
    }
    all.push(...targets);
    await runRounds(targets, baseline, o, postgres, log);
    await Promise.all(targets.map((x) => x.t.close()));
    await stop(targets.flatMap((x) => x.config.children));
    await Promise.all(targets.map((x) => x.config.database?.drop()));
  }
  const results = summarize(all, o);
  if (o.json) console.log(JSON.stringify(results, null, 2));
  else printSummary(results);
  if (baseline) await baseline.t.close();
  await receiver.close();
}

/** `--repeat` rounds of a stage's targets, each round after a run of the baseline when there is one. */
async function runRounds(targets, baseline, o, postgres, log) {
  for (let round = 0; round < o.repeat; round++) {
    const bareRun = baseline ? await measure(baseline, o, postgres, round) : null;
    // A then B in the first round, B then A in the second, and so on: neither always follows the baseline.
    for (const x of round % 2 ? [...targets].reverse() : targets) {
      const run = await measure(x, o, postgres, round);
      if (bareRun) run.ratio_to_bare = Math.round((run.rps / bareRun.rps) * 1000) / 1000;
      if (!o.json) printRun(x, run, { round, repeat: o.repeat });
      else log(`${x.config.label} round ${round + 1}: ${run.rps} req/s${bareRun ? ` (${Math.round(run.ratio_to_bare * 100)} % of bare)` : ''}, p99 ${run.p99_ms} ms, ${run.errors} errors`);
    }
  }
}

/** One run of `x`, kept in its runs; the baseline's is printed here, the others' by the caller (with their ratio). */
async function measure(x, o, postgres, round) {
  const run = await runOnce(x, o, postgres);
  run.round = round + 1;
  run.limit = limitText(run, o.connections);
  x.runs.push(run);
  if (x.bare && !o.json) printRun(x, run, { round, repeat: o.repeat });
  else if (x.bare) process.stderr.write(`${x.config.label} round ${round + 1}: ${run.rps} req/s, p99 ${run.p99_ms} ms\n`);
  return run;
}

/** The database a target's processes share, when this benchmark made it (its backends' CPU is PostgreSQL's share). */
const databasesOf = (x) => (x.config.database ? [x.config.database.name] : []);

/** One measured run of one target, with its CPU readings and (for an emulator) the deliveries' check. */
async function runOnce(x, o, postgres) {
  // A --backends run reads PostgreSQL's CPU for its PostgreSQL configurations only.
  const onPostgres = x.config.database ? true : postgres && x.config.backend === 'postgres';
  const gone = () => x.config.children.find((c) => c.exitCode !== null || c.signalCode !== null);
  const alive = () => {
    const dead = gone();
    if (dead) throw new Error(describeExit(dead));
  };
  alive();
  // --statements: PostgreSQL's per-statement figures of the bench's own database (pg-statements.mjs).
  const statements = o.statements && x.config.database ? statementsReader(o.databaseUrl, databasesOf(x)) : null;
  const run = await runMix(x.t, {
    mix: o.mix,
    connections: o.connections,
    duration: o.duration,
    warmup: o.warmup,
    failed: () => Boolean(gone()),
    onWindow: {
      start: async () => ({
        cpu: cpuReading(x.config.pids, { postgres: onPostgres, databases: databasesOf(x) }), trips: roundTripsReading(x.config.counters),
        statements: await statements?.read(),
      }),
      end: async (before) => ({
        cpu: cpuSpan(before.cpu, cpuReading(x.config.pids, { postgres: onPostgres, databases: databasesOf(x) })),
        trips: roundTripsSpan(before.trips, roundTripsReading(x.config.counters)),
        statements: [before.statements, await statements?.read()],
      }),
    },
  });
  run.round_trips = run.cpu.trips;
  if (statements) {
    run.statements = statementsSpan(...run.cpu.statements, run.requests);
    if (statements.missing) run.statements_missing = statements.missing;
    await statements.close();
  }
  run.cpu = run.cpu.cpu;
  alive();
  if (!x.bare) {
    const settled = await settle(x.t, { after: x.after, drainSeconds: o.drain });
    x.after = settled.next_after;
    delete settled.next_after;
    Object.assign(run, settled);
    alive();
  }
  return run;
}

/** Every failure ends here: the children stopped, one line on stderr (the usage after a usage error), no stack trace. */
async function fail(error) {
  await stopAll();
  const usage = error instanceof UsageError || error?.code?.startsWith?.('ERR_PARSE_ARGS');
  // fetch's own message is only "fetch failed": the reason is its cause (ECONNREFUSED, …).
  const cause = error?.cause ? `: ${error.cause.code ?? error.cause.message}` : '';
  process.stderr.write(`mixed: ${error?.message ?? error}${cause}\n${usage ? `${USAGE}\n` : ''}`);
  process.exit(usage ? 2 : 1);
}

process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
try {
  await main();
  await stopAll();
  process.exit(0);
} catch (error) {
  await fail(error);
}
