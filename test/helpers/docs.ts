// The docs runner's pure parts (test/docs): which fenced blocks of a Markdown file run, and how a
// block is adapted to a fresh emulator. The convention is written in docs/contributing.md.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** Fences that run: ```sh only. Everything else (console, text, json, bash-norun, ts…) is not run. */
const RUN_INFO = 'sh';
export const NOT_RUN_MARK = '<!-- not-run -->';

/**
 * The ```sh blocks of a Markdown text, in order, except those whose previous non-blank line is
 * `<!-- not-run -->`. Fences may be indented (inside list items); the indentation is removed.
 */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j]); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const marked = k >= 0 && lines[k].trim() === NOT_RUN_MARK;
    if (info === RUN_INFO && !marked) blocks.push({ line: i + 1, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

const SKIPPED = /^npm (install|ci|start|test)\b/;

/** Drops the `npm install`, `npm ci`, `npm start`, `npm test` parts of a line (`npm install && npm start`). */
function dropNpmLifecycle(line: string): string {
  const [command, ...comment] = line.split(/(?<=\s)#/);
  const parts = command.split('&&').map((p) => p.trim());
  if (!parts.some((p) => SKIPPED.test(p))) return line;
  const kept = parts.filter((p) => p !== '' && !SKIPPED.test(p));
  return kept.length ? `${kept.join(' && ')}${comment.length ? ` #${comment.join('#')}` : ''}` : '';
}

export interface Target {
  /** `127.0.0.1:54321`: the emulator's real host and port (or, for a team sandbox doc, the balancer's). */
  hostPort: string;
  /** The ready line's credentials; absent when the file starts its own emulators (the placeholders stay). */
  testCredential?: string;
  liveCredential?: string;
  /** A team sandbox doc: each documented port (DOCUMENTED_PORTS) and the free port it becomes. */
  ports?: Record<number, number>;
  /** A team sandbox doc: the throwaway database that takes DOCUMENTED_DATABASE_URL's place. */
  databaseUrl?: string;
}

/**
 * The mark of a doc whose blocks start a team sandbox of their own on PostgreSQL (docs/team-sandbox.md):
 * no emulator is started for it; it gets a throwaway database and free ports instead.
 */
export const POSTGRES_MARK = '<!-- docs-runner: postgres -->';

/** The database such a doc writes; the runner puts the URL of a fresh, empty database in its place. */
export const DOCUMENTED_DATABASE_URL = 'postgres://merchant_kit@127.0.0.1:5432/merchant_kit';

/** The ports such a doc writes (the balancer, then up to three processes); each becomes a free port. */
export const DOCUMENTED_PORTS = [4010, 4011, 4012, 4013] as const;

/** True when the doc runs against PostgreSQL (it carries POSTGRES_MARK). */
export function needsPostgres(markdown: string): boolean {
  return markdown.includes(POSTGRES_MARK);
}

/**
 * A block as it runs against `target`: the documented address (`127.0.0.1:4010`, `localhost:4010`)
 * and the credential placeholders of the ready line replaced, npm lifecycle commands dropped. For a
 * team sandbox doc, also the documented database URL, and every documented port in an address
 * (`127.0.0.1:4011`) or after `--port`.
 */
export function adaptBlock(code: string, target: Target): string {
  let out = code.split('\n').map(dropNpmLifecycle).join('\n');
  if (!target.ports) out = out.replace(/(?:127\.0\.0\.1|localhost):4010\b/g, target.hostPort);
  if (target.testCredential) out = out.replaceAll('svk_test_….svs_test_…', target.testCredential);
  if (target.liveCredential) out = out.replaceAll('svk_live_….svs_live_…', target.liveCredential);
  const ports = target.ports;
  if (ports) {
    // One pass: a free port that happens to be another documented one is never replaced again.
    out = out.replace(/(?:(?:127\.0\.0\.1|localhost):|(--port[ =]))(\d{4,5})\b/g, (whole, flag: string | undefined, port: string) =>
      ports[Number(port)] === undefined ? whole : `${flag ?? '127.0.0.1:'}${ports[Number(port)]}`);
  }
  // Last: the real URL's own port is never taken for a documented one.
  if (target.databaseUrl) out = out.replaceAll(DOCUMENTED_DATABASE_URL, target.databaseUrl);
  return out;
}

export const BLOCK_MARK = '__DOCS_BLOCK__';

/**
 * One bash script for a whole file: the blocks in order in one session (variables and files carry
 * over), `set -e` so that any failing command fails its block, a marker line before each block.
 */
export function sessionScript(blocks: { code: string }[]): string {
  const parts = ['set -eo pipefail'];
  // A newline first: the previous command's output may not end with one (`curl -s`).
  blocks.forEach((b, i) => parts.push(`printf '\\n%s\\n' "${BLOCK_MARK} ${i}"`, b.code));
  parts.push(`printf '\\n%s\\n' "${BLOCK_MARK} end"`);
  return `${parts.join('\n')}\n`;
}

/** The index of the block that was running when the output stopped (the last marker), or null at the end. */
export function lastBlock(output: string): number | null {
  const marks = [...output.matchAll(new RegExp(`^${BLOCK_MARK} (\\d+|end)$`, 'gm'))];
  const last = marks.at(-1)?.[1];
  return last === undefined ? 0 : last === 'end' ? null : Number(last);
}

/**
 * Follows the markers of a running session as its output arrives: which block runs now, since when,
 * and how long each finished block took. Only whole lines are read (a marker may arrive in pieces).
 */
export class MarkerClock {
  /** The block running now (its index), or null before the first marker and after the end. */
  current: number | null = null;
  blockStartedAt: number;
  /** The blocks whose marker was seen, in the order seen. */
  readonly started: number[] = [];
  /** Whether the end marker was seen. */
  ended = false;
  private readonly times: number[] = [];
  private scanned = 0;

  constructor(startedAt: number) {
    this.blockStartedAt = startedAt;
  }

  /** Reads the output up to its last whole line; true when a new marker was seen. */
  read(output: string, now: number): boolean {
    const end = output.lastIndexOf('\n') + 1;
    if (end <= this.scanned) return false;
    const text = output.slice(this.scanned, end);
    this.scanned = end;
    let seen = false;
    for (const [, mark] of text.matchAll(new RegExp(`^${BLOCK_MARK} (\\d+|end)$`, 'gm'))) {
      if (this.current !== null) this.times.push(now - this.blockStartedAt);
      this.current = mark === 'end' ? null : Number(mark);
      if (this.current !== null) this.started.push(this.current);
      else this.ended = true;
      this.blockStartedAt = now;
      seen = true;
    }
    return seen;
  }

  /**
   * The first block of `count` that never started although a later one did or the end was reached:
   * on a terminal, a command that read the pasted lines took that block's lines from the shell.
   */
  firstSkipped(count: number): number | null {
    const seen = new Set(this.started);
    const last = this.ended ? count : Math.max(-1, ...this.started);
    for (let i = 0; i < Math.min(count, last); i++) if (!seen.has(i)) return i;
    return null;
  }

  /** Each block's time in ms; the block still running at the end counts until `now`. */
  finish(now: number): number[] {
    return this.current === null ? [...this.times] : [...this.times, now - this.blockStartedAt];
  }
}

/** The runner stopped a session: the limit that ran out, and the block that was running. */
export interface Stop {
  limit: 'block' | 'file';
  limitMs: number;
  block: number | null;
  ranMs: number;
  /** The machine's load factor when it stopped (helpers/wait.ts): the limit had grown by that much. */
  loadFactor?: number;
}

/** How a session's input reaches bash: a script argument (`-c`), or pasted into a pseudo-terminal. */
export type SessionMode = 'pipe' | 'terminal';

/** What a command that reads a terminal's input does to the lines pasted after it. */
const READ_THE_PASTE = 'a command of this block read the rest of the pasted lines from the terminal (a prompt, or a spinner that discards stdin, as ora does unless `discardStdin: false`)';

/**
 * Why a session ended, in words for a failure message: stopped by which time limit, killed by a
 * signal, or exited non-zero (never "exited with null"). On a terminal, a session that ran out of
 * input before its last block (`code` 0), or that skipped blocks, lost them to a command that read
 * the paste.
 */
export function describeEnd(end: { code: number | null; signal: NodeJS.Signals | null; stopped: Stop | null; mode?: SessionMode; skipped?: number | null }): string {
  if (end.mode === 'terminal' && end.skipped !== undefined && end.skipped !== null) {
    return `block ${end.skipped} never ran on the terminal: ${READ_THE_PASTE.replace('this block', 'the block before it')}`;
  }
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const load = end.stopped?.loadFactor && end.stopped.loadFactor > 1 ? `, grown ×${end.stopped.loadFactor.toFixed(1)} for the machine's load` : '';
  if (end.stopped?.limit === 'block') {
    return `the block was stopped by the docs runner's time limit: it ran ${seconds(end.stopped.ranMs)} with no further block started (limit per block ${seconds(end.stopped.limitMs)}${load})`;
  }
  if (end.stopped?.limit === 'file') {
    return `the file was stopped by the docs runner's time limit of ${seconds(end.stopped.limitMs)} while this block ran (for ${seconds(end.stopped.ranMs)}${load})`;
  }
  if (end.signal) return `the session was killed by ${end.signal} (not by the docs runner)`;
  if (end.code === 0 && end.mode === 'terminal') return `the shell found no more input before the next block: ${READ_THE_PASTE}`;
  if (end.code === 0) return 'the session exited 0 before the last block finished (a block ran `exit 0`?)';
  return `the block exited with code ${end.code}`;
}

/** A secret part of a credential, a webhook signing secret or a store token, in full. */
const SECRET = /\b(?:svs_(?:test|live)_|whsec_|mks_|mkc_)[A-Za-z0-9_-]{8,}/;

/**
 * The files a docs session left in its working directory that hold a secret in clear (issue 14: a
 * recipe that pastes into a project must write no credential there). The links to the repo's
 * folders, the runner's shims and the config folder (profiles, stored encrypted) are not the reader's files.
 */
export function credentialFiles(dir: string, skip: readonly string[] = ['.bin', '.config', 'fixtures', 'docs']): string[] {
  const found: string[] = [];
  const walk = (at: string, rel: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && skip.includes(entry.name)) continue;
      if (entry.isDirectory()) walk(join(at, entry.name), path);
      else if (entry.isFile() && SECRET.test(readFileSync(join(at, entry.name), 'latin1'))) found.push(path);
    }
  };
  walk(dir, '');
  return found;
}

/**
 * A terminal's output as text to read in a failure message: colour and cursor sequences removed,
 * and of a line that a spinner redrew (`\r`, or the cursor sent back to column 1) only its last
 * drawing kept.
 */
export function terminalText(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      const redraws = line.replace(/\x1b\[1?G/g, '\r').split('\r');
      const last = [...redraws].reverse().find((part) => part.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim() !== '') ?? '';
      return last.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trimEnd();
    })
    .join('\n');
}

/** The environment variable that marks every process of one docs session, detached ones included. */
export const SESSION_ENV = 'MERCHANT_KIT_DOCS_SESSION';

export interface SessionProcess {
  pid: number;
  /** Its command line, for a failure message. */
  command: string;
}

/**
 * The live processes whose environment carries the session's mark (read from /proc: Linux, where the
 * docs run): what a session's blocks left running, an `emulator start --detach` (a session of its
 * own, out of reach of the runner's process-group kill) included.
 */
export function sessionProcesses(mark: string): SessionProcess[] {
  const found: SessionProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  const wanted = `${SESSION_ENV}=${mark}`;
  for (const name of entries) {
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(wanted)) continue;
      const command = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
      found.push({ pid: Number(name), command });
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
}

/**
 * The mark before a team sandbox doc's nginx configuration (a ```nginx block, not run as shell): the
 * runner starts Debian's nginx with it, adapted to this machine (adaptNginx), for the whole session.
 */
export const NGINX_MARK = '<!-- docs-runner: nginx -->';

/** The public address such a doc writes for the sandbox behind nginx; it becomes `https://localhost:<nginx's port>`. */
export const DOCUMENTED_PUBLIC_URL = 'https://sandbox.example.com';

/** The configuration in the fenced block that follows NGINX_MARK, or null when the doc has none. */
export function nginxBlock(markdown: string): string | null {
  const at = markdown.indexOf(NGINX_MARK);
  if (at < 0) return null;
  const open = /^([ \t]*)(`{3,}|~{3,})[^\n]*\n/m.exec(markdown.slice(at + NGINX_MARK.length));
  if (!open) return null;
  const start = at + NGINX_MARK.length + open.index + open[0].length;
  const end = markdown.indexOf(`\n${open[1]}${open[2]}`, start - 1);
  return end < 0 ? null : markdown.slice(start, end + 1);
}

export interface NginxTarget {
  /** The free loopback port nginx listens on with TLS. */
  port: number;
  certificate: string;
  key: string;
  /** The documented ports (4011…4013) and the free ports they became. */
  ports: Record<number, number>;
  /** nginx's own folder: its pid file, logs and temp paths. */
  prefix: string;
  /** Running as root, nginx's workers must be able to read what the test made: they run as root too. */
  root: boolean;
}

/**
 * The doc's nginx configuration as the runner starts it: `listen 443 ssl` on the free loopback port,
 * the certificate and key the test made, each upstream `server 10.0.0.1N:4010` on the port of process
 * 401N of the doc, inside a main configuration of the test's own (pid, logs and temp paths in its
 * folder: nothing root-only).
 */
export function adaptNginx(config: string, target: NginxTarget): string {
  const server = config
    .replace(/listen\s+443\s+ssl\s*;/g, `listen 127.0.0.1:${target.port} ssl;`)
    .replace(/ssl_certificate\s+\S+\s*;/g, `ssl_certificate ${target.certificate};`)
    .replace(/ssl_certificate_key\s+\S+\s*;/g, `ssl_certificate_key ${target.key};`)
    .replace(/server\s+10\.0\.0\.1(\d):4010\s*;/g, (whole, n: string) => {
      const port = target.ports[4010 + Number(n)];
      return port === undefined ? whole : `server 127.0.0.1:${port};`;
    });
  const p = target.prefix;
  return `${target.root ? 'user root;\n' : ''}worker_processes 1;
pid ${p}/nginx.pid;
error_log ${p}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${p}/client_body;
  proxy_temp_path ${p}/proxy;
  fastcgi_temp_path ${p}/fastcgi;
  uwsgi_temp_path ${p}/uwsgi;
  scgi_temp_path ${p}/scgi;
${server.replace(/^/gm, '  ')}
}
`;
}

/** A block of a doc behind nginx: its public address becomes nginx's local one. */
export function adaptPublicUrl(code: string, nginxPort: number | undefined): string {
  return nginxPort === undefined ? code : code.replaceAll(DOCUMENTED_PUBLIC_URL, `https://localhost:${nginxPort}`);
}

/**
 * The environment variables of the terminal probe (issue 27): the script run of a doc notes what its
 * processes did that could go otherwise on a terminal, so that its terminal run is made only where
 * it can fail (terminalReasons).
 * - STDIO: what the session's stdin, stdout and stderr are (`pipe:[…]`), set by PROBE_PROLOGUE;
 * - PROBE_LOG: where its Node processes (test/helpers/terminal-probe.cjs) and the filter shims
 *   (filterShim) note what they did on those streams;
 * - TRACE: every simple command the shell ran, before expansion, NUL-separated (bash's DEBUG trap).
 */
export const PROBE_ENV = { STDIO: 'MERCHANT_KIT_DOCS_STDIO', LOG: 'MERCHANT_KIT_DOCS_PROBE_LOG', TRACE: 'MERCHANT_KIT_DOCS_TRACE' } as const;

/**
 * The lines a probed script run starts with: the session's streams, then a trace of every simple
 * command the shell runs, in command substitutions and subshells too (`set -T`). The DEBUG trap's
 * status is ignored (no `extdebug`): the session runs as without it.
 */
export const PROBE_PROLOGUE = [
  `export ${PROBE_ENV.STDIO}="$(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1) $(readlink /proc/$$/fd/2)"`,
  'set -T',
  `trap 'printf "%s\\0" "$BASH_COMMAND" >> "$${PROBE_ENV.TRACE}"' DEBUG`,
].join('\n');

/**
 * Programs that read stdin when given no file: in the script run their stdin is at its end, on a
 * terminal it holds the lines pasted after them. Each runs through a shim (filterShim) that notes when
 * it reads the session's own stdin; piped (`… | grep x`), given a here-document or a file, it does not.
 */
export const FILTERS = ['cat', 'grep', 'sed', 'head', 'tail', 'wc', 'gunzip', 'gzip', 'sort', 'uniq', 'cut', 'tr', 'tee', 'base64', 'awk', 'jq'] as const;
/** Filters whose first operand is a pattern or a program, not a file. */
const PATTERN_FIRST = ['grep', 'sed', 'awk', 'jq'];
/** Filters that read stdin whatever their operands (tee's name its outputs, tr's are sets). */
const ALWAYS_STDIN = ['tr', 'tee'];

/**
 * A filter's shim for the script run: when its stdin is the session's own and it is given no file it
 * reads instead (an operand that is an existing file, after grep's, sed's, awk's or jq's pattern; `-`
 * is stdin), it notes the read; then it runs the program.
 */
export function filterShim(name: string, program: string): string {
  const always = ALWAYS_STDIN.includes(name) ? 'yes' : 'no';
  return `#!/bin/sh
case " $${PROBE_ENV.STDIO} " in
*" $(readlink /proc/$$/fd/0) "*)
  reads=yes; skip=${PATTERN_FIRST.includes(name) ? 1 : 0}
  if [ ${always} = no ]; then
    for a in "$@"; do
      case "$a" in -) reads=yes; break ;; -*) continue ;; esac
      if [ $skip -gt 0 ]; then skip=0; continue; fi
      if [ -f "$a" ]; then reads=no; fi
    done
  fi
  if [ $reads = yes ]; then printf '%s\\n' "${name} reads the session's stdin" >> "$${PROBE_ENV.LOG}"; fi ;;
esac
exec "${program}" "$@"
`;
}

/** The Node programs of a session: the probe sees what they do. */
const PROBED = new Set(['node', 'npx', 'merchant-kit']);

/**
 * Commands that neither read stdin nor look at a terminal (or whose output alone differs there, as
 * `ls`'s columns): shell builtins and keywords but `read`, `mapfile`, `readarray`, `exec`, `command`
 * and `test -t`; the programs the docs use; the runner's stand-in `./start-connector.sh`.
 */
const NEUTRAL = new Set([
  ':', '.', '[', '[[', '!', '{', '}', 'source', 'eval', 'true', 'false', 'echo', 'printf', 'export', 'unset', 'set', 'shopt', 'cd', 'pwd', 'local', 'declare',
  'typeset', 'readonly', 'return', 'exit', 'shift', 'test', 'if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac',
  'function', 'select', 'time', 'wait', 'kill', 'trap', 'break', 'continue', 'let', 'type', 'hash', 'umask', 'sleep', 'date', 'mktemp', 'rm', 'rmdir',
  'mkdir', 'ls', 'touch', 'chmod', 'cp', 'mv', 'ln', 'basename', 'dirname', 'seq', 'uname', 'curl', './start-connector.sh',
]);

/** The command word of a simple command as bash's DEBUG trap shows it: its first word after `NAME=value` words. */
export function commandWord(command: string): string | null {
  let i = 0;
  const word = (): string => {
    let out = '';
    let depth = 0;
    let quote: string | null = null;
    for (; i < command.length; i++) {
      const c = command[i]!;
      if (quote) {
        if (c === quote) quote = null;
        else if (c === '\\' && quote === '"') out += command[++i] ?? '';
        else out += c;
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === '\\') out += command[++i] ?? '';
      else if (c === '(') (depth++, (out += c));
      else if (c === ')') (depth--, (out += c));
      else if (/\s/.test(c) && depth <= 0) break;
      else out += c;
    }
    return out;
  };
  for (;;) {
    while (i < command.length && /\s/.test(command[i]!)) i++;
    if (i >= command.length) return null;
    const w = word();
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w)) return w;
  }
}

/**
 * Why a doc's terminal run can differ from its script run, from what the script run did: what its
 * Node processes and filters noted (`probe`: the lines of PROBE_LOG) and every command the shell ran
 * (`trace`) that is neither a Node program nor known to be neutral. Empty: nothing it ran reads
 * stdin or looks at a terminal, so pasted into one it runs the same.
 */
export function terminalReasons(probe: string, trace: string, script = ''): string[] {
  // One line per kind of thing, with the first process that did it.
  const reasons = new Map<string, string>();
  for (const line of probe.split('\n').map((l) => l.replace(/^\d+ /, '').trim()).filter(Boolean)) {
    const kind = line.replace(/ \(node .*\)$/, '');
    if (!reasons.has(kind)) reasons.set(kind, line);
  }
  const add = (reason: string) => reasons.set(reason, reason);
  // The session's own functions: the shell traces the commands of their bodies (`set -T`).
  const functions = new Set([...script.matchAll(/(?:^|[\s;&|(])(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{/g)].map((m) => m[1]!));
  for (const command of trace.split('\0')) {
    const word = commandWord(command);
    if (word === null || PROBED.has(word) || functions.has(word) || (FILTERS as readonly string[]).includes(word)) continue;
    const args = command.slice(command.indexOf(word) + word.length);
    if (word === 'curl' && /@-|\s-(\s|$)/.test(args)) add(`curl reads stdin: ${command.split('\n')[0]!.slice(0, 120)}`);
    else if ((word === 'test' || word === '[' || word === '[[') && /(^|\s)-t(\s|$)/.test(args)) add(`${word} -t asks whether a stream is a terminal`);
    else if (!NEUTRAL.has(word)) add(`${word} (a program the runner does not know to behave alike on a terminal)`);
  }
  return [...reasons.values()];
}
