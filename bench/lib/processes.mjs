// Child processes of a benchmark, every one stopped when the benchmark ends: normally, on an error,
// on Ctrl+C (SIGINT) or SIGTERM. Temporary folders made for them are removed at the same time.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set();
const folders = new Set();
const stopHooks = new Set();
let stopping = null;

/** Runs `hook` (async) when the benchmark stops, after its children: a database to drop. */
export function onStop(hook) {
  stopHooks.add(hook);
}

/** Removed when the benchmark ends (a SQLite data folder, a file of canned bodies). */
export function removeOnExit(path) {
  folders.add(path);
}

/**
 * Spawns `node args…` with stdout and stderr piped. Resolves with the first stdout line that
 * `isReady` accepts (parsed as JSON when it can be); rejects when the process exits first or after
 * `timeoutMs`, with the last lines it wrote to stderr. Its later output is read and dropped (a full
 * pipe would stall it), keeping the last lines of stderr for `describeExit`.
 */
export function spawnReady(args, { cwd, env, isReady, timeoutMs = 60_000, name }) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.benchName = name;
  child.stderrTail = [];
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    child.exitedWith = signal ?? code;
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    child.stderrTail.push(...chunk.split('\n').filter((l) => l.trim()));
    child.stderrTail.splice(0, Math.max(0, child.stderrTail.length - 20));
  });
  child.stdout.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let buffered = '';
    let done = false;
    const finish = (error, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(new Error(`${name} printed no ready line within ${timeoutMs / 1000} s${tail(child)}`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      if (done) return;
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        let parsed = line;
        try {
          parsed = JSON.parse(line);
        } catch {
          // not JSON: `isReady` decides on the text
        }
        if (isReady(parsed)) return finish(null, { child, ready: parsed });
      }
    });
    child.once('error', (error) => finish(new Error(`${name} could not start: ${error.message}`)));
    // 'close' rather than 'exit': stderr has been read to its end by then.
    child.once('close', () => finish(new Error(`${name} exited (${child.exitedWith}) before it was ready${tail(child)}`)));
  });
}

function tail(child) {
  const lines = child.stderrTail.slice(-5);
  return lines.length ? `:\n  ${lines.join('\n  ')}` : '';
}

/** "emulator 2 exited (1): <its last stderr lines>" for a child that stopped during a run. */
export function describeExit(child) {
  return `${child.benchName} exited (${child.exitedWith}) during the run${tail(child)}`;
}

/** Stops `list` (SIGTERM, then SIGKILL after `graceMs`); resolves once every one has exited. */
export function stop(list, graceMs = 5_000) {
  return Promise.all(
    list.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Stops every child, removes the temporary folders, then runs the stop hooks. */
export function stopAll(graceMs = 5_000) {
  stopping ??= stop([...children], graceMs)
    .then(removeFolders)
    .then(() => Promise.all([...stopHooks].map((hook) => Promise.resolve(hook()).catch(() => undefined))));
  return stopping;
}

function removeFolders() {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
  folders.clear();
}

/**
 * Ctrl+C and SIGTERM stop the children and exit 130/143; an exit of any other kind (an uncaught
 * error included) kills what is left at once, since nothing asynchronous runs in an 'exit' handler.
 */
export function stopChildrenOnExit() {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the emulators…\n`);
      stopAll().finally(() => process.exit(code));
    });
  }
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    removeFolders();
  });
}
