'use strict';
// The docs runner's probe (test/docs, issue 27), loaded with NODE_OPTIONS=--require into every Node
// process of a docs session's script run: the CLI, the `node -e` of the blocks, an emulator a block
// starts. It writes a line to MERCHANT_KIT_DOCS_PROBE_LOG each time the process does something that
// could go otherwise on a terminal, on one of the session's own streams (MERCHANT_KIT_DOCS_STDIO: what
// the session's stdin, stdout and stderr are, written by the script's first line):
// - asks whether a stream is a terminal, its size or its colours (`isTTY`, `columns`, `rows`,
//   `getColorDepth`, `hasColors`, `getWindowSize`, `tty.isatty`): a spinner, a prompt, a pager, a
//   browser that opens only on a terminal;
// - reads stdin (`process.stdin`, `fs.readFileSync(0)`, `/dev/stdin`…): in the script run it is at its
//   end at once; on a terminal it holds the lines pasted after the command;
// - opens /dev/tty;
// - starts a program that inherits the session's streams (what that program does is not seen here).
// A file none of whose processes did any of this, and whose other programs are known not to
// (helpers/docs.ts, terminalNeutral), runs the same on a terminal: its terminal run is skipped.
//
// Not counted, each because what it decides is only drawn (on a terminal it goes to the screen, where
// no later command reads it) and it leaves stdin alone:
// - Node's console choosing its colours (it reads `isTTY`);
// - chalk's colour level, which its supports-color works out with `tty.isatty(1)` and `tty.isatty(2)`
//   when it is loaded (the CLI gives each of its Chalk instances a level of its own, src/cli/output.ts);
// - the CLI's `canSpin` (src/cli/spinner.ts), the one place that decides whether a spinner is drawn:
//   the spinners of its factory leave stdin alone (`discardStdin: false`), which the docs runner's own
//   cases check with ora on a pseudo-terminal;
// - Node making the `node:process` module for an `import` (it reads every property of `process`, so
//   it creates the stdin stream, paused, without reading it).

const fs = require('node:fs');
const tty = require('node:tty');
const childProcess = require('node:child_process');

const LOG = process.env.MERCHANT_KIT_DOCS_PROBE_LOG;
const STDIO = process.env.MERCHANT_KIT_DOCS_STDIO;

if (LOG && STDIO) {
  const session = new Set(STDIO.split(' ').filter(Boolean));
  const link = (fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return null;
    }
  };
  /** Whether descriptor `fd` of this process is one of the session's own streams. */
  const sessions = (fd) => Number.isInteger(fd) && fd >= 0 && fd <= 2 && session.has(link(fd));
  const noted = new Set();
  const note = (what) => {
    if (noted.has(what)) return;
    noted.add(what);
    const args = process.argv.slice(1, 4).join(' ').slice(0, 200);
    try {
      fs.appendFileSync(LOG, `${process.pid} ${what} (node ${args})\n`);
    } catch {
      // The session is over and its log gone: nothing to report to.
    }
  };
  const readFileSync = fs.readFileSync;
  /** The call sites of the code that called into the probe, innermost first. */
  const callers = () => {
    const saved = Error.prepareStackTrace;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    Error.prepareStackTrace = (_, sites) => sites;
    const holder = {};
    Error.captureStackTrace(holder, callers);
    const sites = holder.stack;
    Error.prepareStackTrace = saved;
    Error.stackTraceLimit = limit;
    return Array.isArray(sites) ? sites.filter((site) => site.getFileName() !== __filename) : [];
  };
  const lines = new Map();
  const sourceLine = (site) => {
    const file = site?.getFileName();
    if (!file || file.startsWith('node:')) return '';
    try {
      if (!lines.has(file)) lines.set(file, readFileSync.call(fs, file.startsWith('file://') ? new URL(file) : file, 'utf8').split('\n'));
      return lines.get(file)[site.getLineNumber() - 1] ?? '';
    } catch {
      return '';
    }
  };
  /** What only draws (see the header): Node's console colours, the CLI's canSpin. */
  const onlyDraws = () => {
    const sites = callers();
    if (sites.some((site) => /^node:internal\/(console|util\/colors)/.test(site.getFileName() ?? ''))) return true;
    return /^canSpin\d*$/.test(sites[0]?.getFunctionName() ?? '');
  };
  /** chalk's supports-color, when it is loaded. */
  const colourLevel = () => /createSupportsColor\(\s*\{\s*isTTY:\s*[\w$]+\.isatty\([12]\)\s*\}\s*\)/.test(sourceLine(callers()[0]));
  /** Node making the `node:process` module for an import. */
  const processModule = () => callers().some((site) => site.getFileName() === 'node:internal/bootstrap/realm');

  const watchStream = (stream, name, fd) => {
    for (const prop of ['isTTY', 'columns', 'rows', 'getColorDepth', 'hasColors', 'getWindowSize']) {
      let value = stream[prop];
      Object.defineProperty(stream, prop, {
        configurable: true,
        enumerable: prop !== 'getColorDepth' && prop !== 'hasColors' && prop !== 'getWindowSize',
        get() {
          if (sessions(fd) && !onlyDraws()) note(`${name}.${prop}`);
          return value;
        },
        set(v) {
          value = v;
        },
      });
    }
  };

  [['stdin', 0], ['stdout', 1], ['stderr', 2]].forEach(([name, fd]) => {
    const original = Object.getOwnPropertyDescriptor(process, name);
    if (!original?.get) return;
    let watched = null;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: original.enumerable,
      get() {
        const stream = original.get.call(this);
        if (fd === 0 && sessions(0) && !processModule()) note('process.stdin');
        if (stream !== watched) {
          watched = stream;
          watchStream(stream, `process.${name}`, fd);
        }
        return stream;
      },
    });
  });

  const isatty = tty.isatty;
  tty.isatty = function (fd) {
    if (sessions(fd) && !colourLevel()) note(`tty.isatty(${fd})`);
    return isatty.apply(this, arguments);
  };

  const STDIN_PATHS = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
  const readsStdin = (target) => (target === 0 || STDIN_PATHS.has(String(target))) && sessions(0);
  const wrapFs = (method, first) => {
    const original = fs[method];
    if (typeof original !== 'function') return;
    fs[method] = function (...args) {
      const target = first(args);
      if (String(target) === '/dev/tty') note(`fs.${method}(/dev/tty)`);
      else if (readsStdin(target)) note(`fs.${method}(stdin)`);
      return original.apply(this, args);
    };
  };
  for (const method of ['readFileSync', 'readFile', 'readSync', 'read', 'openSync', 'open']) wrapFs(method, (args) => args[0]);
  wrapFs('createReadStream', (args) => (args[1] && typeof args[1] === 'object' && args[1].fd !== undefined ? args[1].fd : args[0]));

  /** A child that inherits one of the session's streams: what it does there is not seen by this probe. */
  const inherits = (stdio) => {
    const list = stdio === undefined ? [] : typeof stdio === 'string' ? [stdio, stdio, stdio] : stdio;
    // A stream handed over counts as the session's own whenever the session's stream is there.
    return list.some((s, fd) => (s === 'inherit' || s === fd || (s !== null && typeof s === 'object')) && sessions(fd));
  };
  const wrapChild = (method, optionsAt, defaultStdio) => {
    const original = childProcess[method];
    childProcess[method] = function (...args) {
      const options = args.slice(1, optionsAt + 1).find((a) => a && typeof a === 'object' && !Array.isArray(a)) ?? {};
      const stdio = options.stdio ?? defaultStdio;
      if (inherits(stdio)) note(`child_process.${method}(${String(args[0]).slice(0, 80)}) with the session's streams`);
      return original.apply(this, args);
    };
  };
  wrapChild('spawn', 2);
  wrapChild('spawnSync', 2);
  wrapChild('execFileSync', 2, ['pipe', 'pipe', 'inherit']);
  wrapChild('execSync', 1, ['pipe', 'pipe', 'inherit']);
  wrapChild('fork', 2, 'inherit');
  // `import { readFileSync } from 'node:fs'` sees the wrapped functions too.
  require('node:module').syncBuiltinESMExports();
}
