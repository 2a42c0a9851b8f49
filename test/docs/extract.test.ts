import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import {
  adaptBlock, adaptNginx, adaptPublicUrl, commandWord, nginxBlock, NGINX_MARK, BLOCK_MARK, describeEnd, DOCUMENTED_DATABASE_URL, lastBlock, MarkerClock, needsPostgres, POSTGRES_MARK, SESSION_ENV, sessionProcesses, sessionScript, shellBlocks,
  terminalReasons, terminalText,
} from '../helpers/docs.js';

// The docs runner's pure parts (test/helpers/docs.ts): which blocks run and how they are adapted.

const md = (...lines: string[]) => lines.join('\n');

describe('shellBlocks', () => {
  it.each([
    ['a sh block', md('text', '```sh', 'echo hi', '```'), [{ line: 2, code: 'echo hi' }]],
    ['console, text, json and bash-norun are not run', md('```console', '$ x', '```', '```text', 'x', '```', '```json', '{}', '```', '```bash-norun', 'x', '```'), []],
    ['bash is not sh', md('```bash', 'echo hi', '```'), []],
    ['a not-run mark before the fence', md('<!-- not-run -->', '', '```sh', 'merchant-kit listen', '```'), []],
    ['a mark further up does not count', md('<!-- not-run -->', 'words', '```sh', 'echo hi', '```'), [{ line: 3, code: 'echo hi' }]],
    ['indented fences lose their indentation', md('- item', '  ```sh', '  echo a', '    echo b', '  ```'), [{ line: 2, code: 'echo a\n  echo b' }]],
    ['a longer fence holds a shorter one', md('````sh', 'cat <<EOF', '```', 'EOF', '````'), [{ line: 1, code: 'cat <<EOF\n```\nEOF' }]],
    ['blocks in order', md('```sh', 'a', '```', '```sh', 'b', '```'), [{ line: 1, code: 'a' }, { line: 4, code: 'b' }]],
  ])('%s', (_name, text, expected) => {
    expect(shellBlocks(text)).toEqual(expected);
  });
});

describe('adaptBlock', () => {
  const target = { hostPort: '127.0.0.1:5555', testCredential: 'svk_test_A.svs_test_B', liveCredential: 'svk_live_C.svs_live_D' };
  it.each([
    ['the documented address', 'curl http://127.0.0.1:4010/v1/me', 'curl http://127.0.0.1:5555/v1/me'],
    ['localhost', 'curl localhost:4010/_emulator/health', 'curl 127.0.0.1:5555/_emulator/health'],
    ['another port stays', 'curl http://127.0.0.1:40100/x', 'curl http://127.0.0.1:40100/x'],
    ['the test credential', "export MK='svk_test_….svs_test_…'", "export MK='svk_test_A.svs_test_B'"],
    ['the live credential', 'Bearer svk_live_….svs_live_…', 'Bearer svk_live_C.svs_live_D'],
    ['npm install && npm start', 'npm install && npm start      # the emulator', ''],
    ['npm test with a comment', 'npm test   # the suite', ''],
    ['npm ci before a command', 'npm ci && merchant-kit me', 'merchant-kit me'],
    ['npm run is kept', 'npm run build', 'npm run build'],
  ])('%s', (_name, code, expected) => {
    expect(adaptBlock(code, target)).toBe(expected);
  });
});

// issue 17: docs/team-sandbox.md starts its own sandbox on a throwaway database and free ports.
describe('adaptBlock for a team sandbox doc', () => {
  const target = {
    hostPort: '127.0.0.1:40000',
    ports: { 4010: 40000, 4011: 4012, 4012: 40002, 4013: 40003 },
    databaseUrl: 'postgres://postgres@127.0.0.1:4011/mk_test_1',
  };
  it.each([
    ['the database URL', `export MERCHANT_KIT_DATABASE_URL=${DOCUMENTED_DATABASE_URL}`, 'export MERCHANT_KIT_DATABASE_URL=postgres://postgres@127.0.0.1:4011/mk_test_1'],
    ['each documented port in an address', 'balance --to http://127.0.0.1:4011 --to http://localhost:4012', 'balance --to http://127.0.0.1:4012 --to http://127.0.0.1:40002'],
    ['each documented port after --port', 'start --port 4013 && balance --port=4010', 'start --port 40003 && balance --port=40000'],
    ['the balancer at 4010', 'curl http://127.0.0.1:4010/_emulator/health', 'curl http://127.0.0.1:40000/_emulator/health'],
    ['a free port equal to a documented one is not replaced again', 'a 127.0.0.1:4011 b 127.0.0.1:4012', 'a 127.0.0.1:4012 b 127.0.0.1:40002'],
    ['other ports and the credential placeholders stay', 'curl 127.0.0.1:4020 -H "Bearer svk_test_….svs_test_…"', 'curl 127.0.0.1:4020 -H "Bearer svk_test_….svs_test_…"'],
  ])('%s', (_name, code, expected) => {
    expect(adaptBlock(code, target)).toBe(expected);
  });

  it('knows such a doc by its mark', () => {
    expect(needsPostgres(`# Title\n\n${POSTGRES_MARK}\n`)).toBe(true);
    expect(needsPostgres('# Title\n')).toBe(false);
  });
});

describe('sessionProcesses', () => {
  it('finds a detached process by the session mark of its environment', async () => {
    const mark = `test-${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: { ...process.env, [SESSION_ENV]: mark } });
    try {
      await new Promise((r) => child.once('spawn', r));
      expect(sessionProcesses(mark)).toEqual([{ pid: child.pid, command: 'sleep 30' }]);
      expect(sessionProcesses(`${mark}-other`)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('sessionScript and lastBlock', () => {
  const script = sessionScript([{ code: 'echo one' }, { code: 'false' }]);

  it('runs with errexit and pipefail and marks each block', () => {
    expect(script.startsWith('set -eo pipefail\n')).toBe(true);
    expect(script.match(new RegExp(BLOCK_MARK, 'g'))).toHaveLength(3);
  });

  it.each([
    ['no marker yet', 'text', 0],
    ['the last marker', `${BLOCK_MARK} 0\none\n${BLOCK_MARK} 1\n`, 1],
    ['the end marker', `${BLOCK_MARK} 0\n${BLOCK_MARK} 1\n${BLOCK_MARK} end\n`, null],
    ['a marker inside a line does not count', `x${BLOCK_MARK} 1\n`, 0],
  ])('lastBlock: %s', (_name, output, expected) => {
    expect(lastBlock(output)).toBe(expected);
  });
});

describe('MarkerClock (issue 18: time per block)', () => {
  it('times each block between markers and counts the one still running at the end', () => {
    const clock = new MarkerClock(0);
    expect(clock.read(`${BLOCK_MARK} 0\n`, 10)).toBe(true);
    expect(clock.current).toBe(0);
    expect(clock.read(`${BLOCK_MARK} 0\nout\n${BLOCK_MARK} 1\n`, 250)).toBe(true);
    expect(clock.read(`${BLOCK_MARK} 0\nout\n${BLOCK_MARK} 1\nmore`, 300)).toBe(false);
    expect(clock.current).toBe(1);
    expect(clock.finish(400)).toEqual([240, 150]);
  });

  it('reads a marker that arrives in two pieces once it is whole', () => {
    const clock = new MarkerClock(0);
    expect(clock.read(`${BLOCK_MARK.slice(0, 5)}`, 5)).toBe(false);
    expect(clock.read(`${BLOCK_MARK} 0\n`, 7)).toBe(true);
    expect(clock.read(`${BLOCK_MARK} 0\n${BLOCK_MARK} end\n`, 20)).toBe(true);
    expect(clock.current).toBeNull();
    expect(clock.finish(99)).toEqual([13]);
  });

  // issue 14: on a terminal a command that reads the paste takes later blocks' lines from the shell.
  it.each([
    ['a gap before a later block', ['0', '3', 'end'], 4, 1],
    ['the end reached before the last block', ['0', '1', 'end'], 3, 2],
    ['every block, then the end', ['0', '1', 'end'], 2, null],
    ['a session still running', ['0', '1'], 5, null],
  ])('firstSkipped: %s', (_name, marks, count, skipped) => {
    const clock = new MarkerClock(0);
    clock.read(marks.map((m) => `${BLOCK_MARK} ${m}\n`).join(''), 1);
    expect(clock.started).toEqual(marks.filter((m) => m !== 'end').map(Number));
    expect(clock.firstSkipped(count)).toBe(skipped);
  });
});

describe('describeEnd (issue 18: a failure says why the block ended)', () => {
  it.each([
    ['a non-zero exit', { code: 3, signal: null, stopped: null }, 'the block exited with code 3'],
    ['the block limit', { code: null, signal: 'SIGKILL' as const, stopped: { limit: 'block' as const, limitMs: 120_000, block: 4, ranMs: 120_004 } }, "stopped by the docs runner's time limit: it ran 120 s"],
    ['the file limit', { code: null, signal: 'SIGKILL' as const, stopped: { limit: 'file' as const, limitMs: 300_000, block: 9, ranMs: 4_200 } }, "the file was stopped by the docs runner's time limit of 300 s while this block ran (for 4.2 s)"],
    ['a signal from elsewhere', { code: null, signal: 'SIGTERM' as const, stopped: null }, 'killed by SIGTERM (not by the docs runner)'],
    ['a terminal session that ran out of input', { code: 0, signal: null, stopped: null, mode: 'terminal' as const }, 'the shell found no more input before the next block: a command of this block read the rest of the pasted lines'],
    ['a terminal session that skipped a block', { code: 0, signal: null, stopped: null, mode: 'terminal' as const, skipped: 2 }, 'block 2 never ran on the terminal: a command of the block before it read'],
    ['a script session that exited 0 early', { code: 0, signal: null, stopped: null, mode: 'pipe' as const }, 'a block ran `exit 0`?'],
  ])('%s', (_name, end, expected) => {
    expect(describeEnd(end)).toContain(expected);
    expect(describeEnd(end)).not.toContain('null');
  });
});

describe('terminalText', () => {
  it('keeps the last drawing of a line a spinner redrew, without colour or cursor codes', () => {
    const spun = '\x1b[?25l\x1b[1G\x1b[0K\x1b[36m⠋\x1b[39m Reading\x1b[1G\x1b[0K\x1b[36m⠙\x1b[39m Reading\x1b[1G\x1b[0K\x1b[32m✔\x1b[39m Reading\n\x1b[?25h';
    expect(terminalText(`before\n${spun}after\rlast\n`)).toBe('before\n✔ Reading\nlast\n');
  });
});

describe('nginxBlock and adaptNginx (issue 26: the team sandbox doc\'s nginx runs)', () => {
  const doc = md('# x', NGINX_MARK, '', '```nginx', 'upstream merchant_kit {', '    server 10.0.0.11:4010;', '    server 10.0.0.12:4010;', '}', 'server {',
    '    listen 443 ssl;', '    ssl_certificate     /etc/ssl/sandbox.example.com.crt;', '    ssl_certificate_key /etc/ssl/sandbox.example.com.key;',
    '    location / { proxy_pass http://merchant_kit; }', '}', '```', 'after');

  it('finds the configuration after the mark, and none in a doc without it', () => {
    expect(nginxBlock(doc)).toBe(md('upstream merchant_kit {', '    server 10.0.0.11:4010;', '    server 10.0.0.12:4010;', '}', 'server {',
      '    listen 443 ssl;', '    ssl_certificate     /etc/ssl/sandbox.example.com.crt;', '    ssl_certificate_key /etc/ssl/sandbox.example.com.key;',
      '    location / { proxy_pass http://merchant_kit; }', '}', ''));
    expect(nginxBlock('```nginx\nserver {}\n```')).toBeNull();
  });

  it('listens on the free loopback port with the test\'s certificate, sends to the processes\' ports, and keeps every path in its folder', () => {
    const out = adaptNginx(nginxBlock(doc)!, { port: 5443, certificate: '/t/c.crt', key: '/t/c.key', ports: { 4011: 6011, 4012: 6012 }, prefix: '/t', root: false });
    expect(out).toContain('listen 127.0.0.1:5443 ssl;');
    expect(out).toContain('ssl_certificate /t/c.crt;');
    expect(out).toContain('ssl_certificate_key /t/c.key;');
    expect(out).toContain('server 127.0.0.1:6011;');
    expect(out).toContain('server 127.0.0.1:6012;');
    expect(out).not.toMatch(/10\.0\.0|\/etc\/ssl|listen 443/);
    expect(out).toContain('pid /t/nginx.pid;');
    expect(out).not.toContain('user root');
    expect(adaptPublicUrl('curl https://sandbox.example.com/access', 5443)).toBe('curl https://localhost:5443/access');
  });

  it('is a configuration Debian\'s nginx accepts (nginx -t), made from docs/team-sandbox.md', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'mk-nginx-t-'));
    try {
      const config = nginxBlock(readFileSync(join(ROOT, 'docs', 'team-sandbox.md'), 'utf8'));
      expect(config).not.toBeNull();
      const certificate = join(prefix, 'c.crt');
      const key = join(prefix, 'c.key');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', certificate], { stdio: 'pipe' });
      const conf = join(prefix, 'nginx.conf');
      writeFileSync(conf, adaptNginx(config!, { port: 5443, certificate, key, ports: { 4011: 6011, 4012: 6012, 4013: 6013 }, prefix, root: process.getuid?.() === 0 }));
      execFileSync('/usr/sbin/nginx', ['-t', '-q', '-p', prefix, '-c', conf, '-e', join(prefix, 'error.log')], { stdio: 'pipe' });
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});

// issue 27: what the script run's trace and probe say about its terminal run.
describe('commandWord and terminalReasons', () => {
  it.each([
    ['a plain command', 'curl -s http://x', 'curl'],
    ['after assignments, quoted ones included', 'A=1 B="a b" C=$(echo x) node -e "1"', 'node'],
    ['an assignment alone', 'ORDER_ID=$(merchant-kit simulate order --json | node -p x)', null],
    ['a quoted program', '"python3" -c pass', 'python3'],
    ['a here-document', 'cat <<EOF > f\nline\nEOF', 'cat'],
  ])('commandWord: %s', (_name, command, expected) => {
    expect(commandWord(command)).toBe(expected);
  });

  it('counts nothing for Node programs, filters, builtins, known programs and the session\'s functions', () => {
    const trace = ['export X=1', 'node -e 1', 'npx --no-install merchant-kit me', 'grep -q x f', 'curl -s http://x', 'f one', 'sleep 1', '[ -f x ]'].join('\0');
    expect(terminalReasons('', trace, 'f() { echo "$1"; }\nf one')).toEqual([]);
  });

  it('counts what the probe noted, once per kind, and what the trace shows of the rest', () => {
    const probe = ['12 process.stdin.isTTY (node a.js profile add)', '13 process.stdin.isTTY (node a.js profile add)', "cat reads the session's stdin"].join('\n');
    const trace = ['python3 -c pass', 'read -r x', 'curl -d @- http://x', '[ -t 0 ]', 'f'].join('\0');
    expect(terminalReasons(probe, trace)).toEqual([
      'process.stdin.isTTY (node a.js profile add)',
      "cat reads the session's stdin",
      'python3 (a program the runner does not know to behave alike on a terminal)',
      'read (a program the runner does not know to behave alike on a terminal)',
      'curl reads stdin: curl -d @- http://x',
      '[ -t asks whether a stream is a terminal',
      'f (a program the runner does not know to behave alike on a terminal)',
    ]);
  });
});
