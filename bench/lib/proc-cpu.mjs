// CPU time read from /proc (Linux), to say what limits a run: the emulator processes, the bench's
// own process, PostgreSQL's processes and the whole machine. Elsewhere every reading is null and
// the benchmarks print "-".
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond;
/** The kernel's clock ticks per second (`getconf CLK_TCK`, 100 almost everywhere). */
function clockTicks() {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    ticksPerSecond = Number(out.stdout?.trim()) || 100;
  }
  return ticksPerSecond;
}

/** User + system CPU time of a process in microseconds, or null when it cannot be read. */
export function processCpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name (field 2) may hold spaces and parentheses: the fields that follow start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / clockTicks()) * 1e6;
  } catch {
    return null;
  }
}

/** The pids of the processes named `name` (`/proc/PID/comm`), or null without /proc. */
function processesNamed(name) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  return entries.filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** CPU time (µs) of every process whose name is `name` (PostgreSQL's server and backends), or null. */
export function namedProcessesCpuMicros(name) {
  let total = null;
  for (const pid of processesNamed(name) ?? []) {
    const micros = processCpuMicros(pid);
    if (micros !== null) total = (total ?? 0) + micros;
  }
  return total;
}

/**
 * CPU time (µs) per PostgreSQL backend serving `database`, by pid: a backend's process title (its
 * command line) reads `postgres: USER DATABASE HOST(PORT) STATE`. Other databases of a shared server
 * (another engineer's tests) are left out, and so are the server's own processes (WAL writer,
 * checkpointer), which serve every database.
 */
export function databaseBackendsCpuMicros(database) {
  const pids = processesNamed('postgres');
  if (pids === null) return null;
  const out = new Map();
  for (const pid of pids) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').split(/\s+/);
      if (title[0] !== 'postgres:' || title[2] !== database) continue;
    } catch {
      continue;
    }
    const micros = processCpuMicros(pid);
    if (micros !== null) out.set(pid, micros);
  }
  return out;
}

/** The machine's busy and total CPU time (µs, all cores), or null. */
export function machineCpuMicros() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, ...values] = line.trim().split(/\s+/);
    const ticks = values.slice(0, 8).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = ticks[3] + ticks[4]; // idle + iowait
    const scale = 1e6 / clockTicks();
    return { busy: (total - idle) * scale, total: total * scale };
  } catch {
    return null;
  }
}

/**
 * A reading of everything at once; `cpuSpan(before, after, seconds)` turns two of them into shares:
 * each process's CPU as a share of one core, the machine's as a share of all its cores.
 */
export function cpuReading(pids, { postgres = false, databases = [] } = {}) {
  return {
    at: performance.now(),
    pids: pids.map((pid) => processCpuMicros(pid)),
    self: process.cpuUsage(),
    // With the databases known, only their backends: the server may serve other work too.
    postgres: !postgres ? null : databases.length ? backendsOf(databases) : namedProcessesCpuMicros('postgres'),
    machine: machineCpuMicros(),
  };
}

function backendsOf(databases) {
  const all = new Map();
  for (const db of databases) for (const [pid, micros] of databaseBackendsCpuMicros(db) ?? []) all.set(pid, micros);
  return all;
}

/** CPU used between two readings of PostgreSQL: a total, or per backend (one that came meanwhile counts whole). */
function postgresUsed(before, after) {
  if (before === null || after === null) return null;
  if (!(after instanceof Map)) return after - before;
  let used = 0;
  for (const [pid, micros] of after) used += micros - (before.get(pid) ?? 0);
  return used;
}

export function cpuSpan(before, after) {
  const micros = (after.at - before.at) * 1000;
  const share = (a, b) => (a === null || b === null ? null : (b - a) / micros);
  const selfUsed = after.self.user + after.self.system - before.self.user - before.self.system;
  return {
    processes: before.pids.map((p, i) => share(p, after.pids[i])),
    processes_cpu_micros: before.pids.map((p, i) => (p === null || after.pids[i] === null ? null : after.pids[i] - p)),
    bench: selfUsed / micros,
    postgres: postgresUsed(before.postgres, after.postgres) === null ? null : postgresUsed(before.postgres, after.postgres) / micros,
    postgres_cpu_micros: postgresUsed(before.postgres, after.postgres),
    machine: before.machine && after.machine
      ? (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)
      : null,
  };
}
