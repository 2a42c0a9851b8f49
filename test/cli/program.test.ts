import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { cli, buildPrivateCli, cliEntry, type CliResult } from '../helpers/cli-core.js';
import { inParallel } from '../helpers/parallel.js';
import { waitFor } from '../helpers/wait.js';
import { bundledModules, writeImportLogHook } from '../helpers/loaded-modules.js';
import { Command } from 'commander';
import { COMMAND_GROUPS } from '../../src/cli/commands/index.js';

// The program itself: version, help with an example on every command, exit codes of usage errors,
// completion scripts, and the promise that --help/--version load no server or HTTP module.

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
let help: string;

let removeBuild: () => void = () => undefined;
afterAll(() => removeBuild());

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  help = (await cli(['completion', 'bash'])).stdout;
});

// `--help`'s run, shared by the tests that read the program's help (one process instead of three).
let helpRun: Promise<CliResult> | undefined;
const programHelp = () => (helpRun ??= cli(['--help']));

/** Every command path from the bash completion script's table (`'orders list'`, …). */
function commandPaths(script: string): string[] {
  const body = script.split('_opts()')[0];
  return [...body.matchAll(/^\s+'([a-z -]*)'\)/gm)].map((m) => m[1]).filter(Boolean);
}

describe('merchant-kit', () => {
  it('--version prints the package version and exits 0', async () => {
    for (const r of await inParallel(['--version', '-V'], (flag) => cli([flag]))) {
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(pkg.version);
    }
  });

  it('--help lists the commands in English and exits 0', async () => {
    const r = await programHelp();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: merchant-kit \[options\] \[command\]/);
    for (const group of ['profile', 'me', 'store', 'orders', 'webhook', 'entregas', 'simulate', 'openapi', 'completion']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    }
    expect(r.stdout).not.toMatch(/perfil|salida|dirección/);
  });

  it('bare merchant-kit prints the help on stdout and exits 0, as --help does (issue 27)', async () => {
    const [r, help] = await Promise.all([cli([]), programHelp()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(help.stdout);
    expect(r.stderr).toBe('');
  });

  /**
   * What `--help` prints for every command of the tree, in this process: the groups registered on a
   * program as main.ts registers them (all of them, as for `completion`), each command's help and its
   * added text (examples) written as commander writes them for `--help`.
   */
  function helpOfEveryCommand(): Map<string, string> {
    let out = '';
    const program = new Command().name('merchant-kit').configureOutput({ writeOut: (text) => void (out += text), writeErr: (text) => void (out += text) });
    for (const group of COMMAND_GROUPS) group(program);
    const texts = new Map<string, string>();
    const walk = (command: Command, path: string[]) => {
      for (const sub of command.commands) {
        const at = [...path, sub.name()];
        out = '';
        sub.outputHelp();
        texts.set(at.join(' '), out);
        walk(sub, at);
      }
    };
    walk(program, []);
    return texts;
  }

  // One process per command cost ~90 processes (issue 27): the text of every command's help is the
  // command tree's, checked here for all; the built CLI's `--help` is checked on one command of each
  // kind (a group, a command of a group, a command two levels down, a top-level command, the emulator's).
  it('every command has --help with a copy-paste example', async () => {
    const all = commandPaths(help);
    expect(all).toEqual(expect.arrayContaining(['emulator start', 'catalog sync', 'feed tail', 'homologate', 'proxy', 'replay']));
    const texts = helpOfEveryCommand();
    // The tree walked here is the one the completion script lists, command for command.
    expect([...texts.keys()].sort()).toEqual([...all].sort());
    for (const path of all) expect(texts.get(path), path).toMatch(/Examples?:\n {2}\$ merchant-kit /);
    const wired = ['orders', 'orders list', 'catalog product set', 'listen', 'emulator start'];
    const helps = await inParallel(wired, (path) => cli([...path.split(' '), '--help']));
    wired.forEach((path, i) => {
      expect(helps[i]!.code, path).toBe(0);
      const text = texts.get(path)!;
      // The built CLI prints the same help: its usage line and, word for word, its added text.
      expect(helps[i]!.stdout, path).toContain(text.split('\n')[0]);
      expect(helps[i]!.stdout, path).toContain(text.slice(text.search(/Examples?:\n/)));
      expect(helps[i]!.stdout, path).toMatch(/Examples?:\n {2}\$ merchant-kit /);
    });
  });

  it('a command registers its own group alone: each group is named for the one command it adds', () => {
    for (const group of COMMAND_GROUPS) {
      const program = new Command();
      group(program);
      expect(program.commands.map((c) => c.name()), group.command).toEqual([group.command]);
    }
    expect(new Set(COMMAND_GROUPS.map((g) => g.command)).size).toBe(COMMAND_GROUPS.length);
  });

  it('the program\'s help, `help`, and a mistyped group still see every group (issue 27: a command registers its own alone)', async () => {
    const [help, before, asked, typo, inGroup] = await Promise.all([
      programHelp(), cli(['--help', 'orders']), cli(['--json', '-h', 'orders']), cli(['ordrs', 'list']), cli(['orders', 'lst']),
    ]);
    expect(before.stdout).toBe(help.stdout);
    expect(asked.stdout).toBe(help.stdout);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown command 'ordrs'[\s\S]*Did you mean orders\?/);
    expect(inGroup.code).toBe(2);
    expect(inGroup.stderr).toMatch(/unknown command 'lst'[\s\S]*Did you mean list\?/);
  });

  it('an unknown subcommand, a missing argument and an unknown option exit 2', async () => {
    const cases = [['nope'], ['orders', 'nope'], ['orders', 'get'], ['orders', 'list', '--nope'], ['store'], ['completion', 'tcsh']];
    const results = await inParallel(cases, (args) => cli(args));
    for (const [i, args] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(args.length === 1 && args[0] === 'store' ? /Usage: merchant-kit store/ : /error:/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a rejected option value or argument that holds a secret is quoted redacted, exit 2', async () => {
    const cases = [['orders', 'list', '--limit', 'svs_test_SECRETSECRET'], ['completion', 'svs_live_SECRETSECRET'], ['orders', 'list', '--nope=svs_test_SECRETSECRET']];
    const results = await inParallel(cases, (args) => cli(args));
    for (const [i, args] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^error: .*svs_(test|live)_\[redacted\]/);
      expect(r.stderr, args.join(' ')).not.toContain('SECRETSECRET');
    }
  });

  it('an empty argument (an unset shell variable) is a usage error, exit 2, before any call', async () => {
    const env = { MERCHANT_KIT_BASE_URL: 'http://127.0.0.1:1/sandbox/v1', MERCHANT_KIT_CREDENTIAL: 'svk_test_AAAAAAAA.svs_test_BBBBBBBB' };
    const cases = [[['orders', 'get', ''], 'order_id'], [['orders', 'ack', ' ', '--external-id', 'X'], 'order_id'], [['webhook', 'retry', ''], 'delivery_id'], [['entregas', 'get', ''], 'id']] as const;
    const results = await inParallel(cases, ([args]) => cli([...args], { env }));
    for (const [i, [args, name]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim()).toBe(`error: the argument <${name}> of "${args[1]}" is empty.`);
    }
  });

  it('completion scripts come from the command tree; the bash one is valid bash', async () => {
    expect(commandPaths(help)).toEqual(expect.arrayContaining(['orders list', 'webhook rotate-secret', 'profile add', 'entregas action']));
    expect(() => execFileSync('bash', ['-n'], { input: help })).not.toThrow();
    const offered = [...help.split('_opts()')[1].matchAll(/^\s+'([a-z -]*)'\) echo '([^']*)'/gm)];
    expect(offered.find(([, path]) => path === 'orders list')?.[2].split(' ')).toEqual(expect.arrayContaining(['--ack-status', '--json', '--help']));
    for (const [, path, words] of offered) expect(new Set(words.split(' ')).size, `options of "${path}" offered once each`).toBe(words.split(' ').length);
    const [fish, zsh] = (await Promise.all([cli(['completion', 'fish']), cli(['completion', 'zsh'])])).map((r) => r.stdout);
    expect(fish).toMatch(/complete -c merchant-kit -n '__merchant_kit_at \\'orders\\'' -a 'list'/);
    expect(fish).toMatch(/-l 'ack-status'/);
    expect(zsh).toMatch(/^#compdef merchant-kit\n/);
  });

  it('completes subcommands and options in bash', () => {
    const script = `${help}\nCOMP_WORDS=(merchant-kit orders li); COMP_CWORD=2; _merchant_kit; echo "\${COMPREPLY[@]}"\n` +
      `COMP_WORDS=(merchant-kit orders list --ack); COMP_CWORD=3; _merchant_kit; echo "\${COMPREPLY[@]}"\n`;
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' }).trim().split('\n');
    expect(out).toEqual(['list', '--ack-status']);
  });

  /**
   * What each command loads: the URLs a resolve hook logs (one process per case, at once), and the
   * modules bundled into the built files among them (the CLI's build carries its dependencies in its
   * chunks: what a chunk holds is named by the comment esbuild writes above each module,
   * `// node_modules/zod/v4/core/core.js`).
   */
  async function loadedBy(cases: { args: string[]; env?: NodeJS.ProcessEnv }[]): Promise<{ resolved: string; bundled: string[]; files: string[]; builtins: string[] }[]> {
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-imports-'));
    try {
      // Each process logs what it resolves to the file its environment names, and at its exit the
      // Node built-in modules it loaded (`require` of one goes through no resolve hook).
      const register = writeImportLogHook(dir);
      const builtinsLog = join(dir, 'builtins.mjs');
      writeFileSync(builtinsLog, "import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.MK_BUILTINS_LOG, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join('\\n')));");
      return await inParallel(cases.map((c, i) => ({ ...c, log: join(dir, `loaded-${i}.txt`), builtins: join(dir, `builtins-${i}.txt`) })), async ({ args, env, log, builtins }) => {
        writeFileSync(log, '');
        await promisify(execFile)(process.execPath, ['--import', register, '--import', builtinsLog, cliEntry(), ...args], {
          cwd: ROOT,
          // A developer's own MERCHANT_KIT_* settings (a profile to use) must not change what loads.
          env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MERCHANT_KIT_'))), NO_COLOR: '1', MK_IMPORTS_LOG: log, MK_BUILTINS_LOG: builtins, ...env },
        });
        const resolved = readFileSync(log, 'utf8');
        // The files of the build, as paths inside dist/ (`src/cli/main.js`, `cli-core.js`, chunks).
        const files = [...new Set(resolved.split('\n').filter((url) => url.startsWith('file:') && url.includes('/dist/')).map((url) => url.slice(url.lastIndexOf('/dist/') + 6)))];
        return { resolved, bundled: bundledModules(resolved), files, builtins: readFileSync(builtins, 'utf8').split('\n') };
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // chalk too: it loads only when a stream is painted (the tests run with NO_COLOR).
  const HEAVY = /^(node_modules\/(fastify|better-sqlite3|undici|zod|ora|chalk)\/|emulator\/)/;
  // emulator/net/trusted-proxies.ts is a parser of --trust-proxy's values (node:net only), which
  // commander runs when it reads the option: not the emulator.
  const NOT_HEAVY = new Set(['emulator/net/trusted-proxies.ts']);

  // What --version and the helps load: one run of each, read by the two tests below.
  const HELP_CASES = [['--version'], ['--help'], ['orders', '--help'], ['profile', 'add', '--help']];
  let helpLoads: ReturnType<typeof loadedBy> | undefined;
  const loadedByHelps = () => (helpLoads ??= loadedBy(HELP_CASES.map((args) => ({ args }))));

  it('--help and --version load neither fastify, better-sqlite3, undici, zod nor the emulator', async () => {
    const cases = HELP_CASES;
    const loaded = await loadedByHelps();
    for (const [i, args] of cases.entries()) {
      const { resolved, bundled } = loaded[i]!;
      expect(resolved + bundled.join('\n'), args.join(' ')).toMatch(/commander/);
      expect(resolved, args.join(' ')).not.toMatch(/node_modules\/(fastify|better-sqlite3|undici|zod|ora)\/|\/emulator\//);
      expect(bundled.filter((path) => HEAVY.test(path) && !NOT_HEAVY.has(path)), args.join(' ')).toEqual([]);
    }
  });

  it('every command loads what all commands need as one file: --help and --version load main.js and cli-core.js, and no child_process', async () => {
    // tsup.config.ts (mergeCore): main.js's chunks, ~20 files, are one; commander spawns nothing.
    const cases = [['--version'], ['--help'], ['orders', '--help']];
    const loaded = (await loadedByHelps()).slice(0, cases.length);
    expect(HELP_CASES.slice(0, cases.length)).toEqual(cases);
    for (const [i, args] of cases.entries()) {
      const { files, bundled, builtins } = loaded[i]!;
      expect(files.sort(), args.join(' ')).toEqual(['cli-core.js', 'src/cli/main.js']);
      // The merged file still names the modules it holds, as every chunk does.
      expect(bundled, args.join(' ')).toEqual(expect.arrayContaining(['src/cli/main.ts', 'src/cli/errors.ts']));
      expect(bundled.some((path) => path.startsWith('node_modules/commander/')), args.join(' ')).toBe(true);
      expect(builtins, args.join(' ')).not.toContain('child_process');
    }
  });

  it('a request command loads the client on Node\'s own HTTP client, but neither undici, zod (no schema is built), fastify, better-sqlite3, ora, chalk (colours are off) nor the emulator', async () => {
    // A server that answers as the API would: the command succeeds, so everything it loads is seen.
    const server = http.createServer((req, res) => {
      const body = req.url?.startsWith('/sandbox/v1/orders') ? { data: [], next_cursor: null } : { data: {} };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as AddressInfo;
      const env = { MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: 'svk_test_abc.svs_test_secretsecret' };
      const cases = [['me', '--json'], ['orders', 'list'], ['orders', 'list', '--json']];
      const [loaded, painted] = await Promise.all([loadedBy(cases.map((args) => ({ args, env }))), loadedBy([{ args: ['orders', 'list'], env: { ...env, FORCE_COLOR: '1' } }])]);
      // With colours on, chalk paints.
      expect(painted[0]!.bundled.some((path) => path.startsWith('node_modules/chalk/'))).toBe(true);
      for (const [i, args] of cases.entries()) {
        const { resolved, bundled } = loaded[i]!;
        // The CLI's pool (tsup.config.ts, cliPool): Node's HTTP client in place of undici's ~500 kB.
        expect(bundled, args.join(' ')).toEqual(expect.arrayContaining(['src/client/merchant-client.ts', 'src/client/pool-node-http.ts']));
        expect(bundled, args.join(' ')).not.toContain('src/cli/undici.mjs');
        expect(resolved, args.join(' ')).not.toMatch(/node_modules\/(fastify|better-sqlite3|undici|zod|ora)\/|\/emulator\//);
        const heavy = bundled.filter((path) => HEAVY.test(path) && !NOT_HEAVY.has(path));
        expect(heavy, args.join(' ')).toEqual([]);
        // Plain HTTP needs no TLS (node:https loads only for an https:// URL), nor HTTP/2; commander's
        // child_process only to spawn (tsup.config.ts).
        expect(loaded[i]!.files, args.join(' ')).toContain('cli-core.js');
        for (const builtin of ['http2', 'tls', 'child_process']) expect(loaded[i]!.builtins, `${args.join(' ')}: ${builtin}`).not.toContain(builtin);
      }
    } finally {
      server.close();
    }
  });

  it('emulator stop loads the pid file helpers, but neither zod, fastify, better-sqlite3, undici nor the rest of the emulator', async () => {
    // A process whose command line names merchant-kit and the emulator, as a started one's does.
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-stop-'));
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'merchant-kit', 'emulator'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'emulator.pid'), `${child.pid}\n`);
      const [{ resolved, bundled }] = await loadedBy([{ args: ['emulator', 'stop', '--data', dir] }]);
      expect(child.exitCode ?? child.signalCode).toBe('SIGTERM');
      expect(bundled).toContain('emulator/pid-file.ts');
      expect(resolved).not.toMatch(/node_modules\/(fastify|better-sqlite3|undici|zod|ora)\/|\/emulator\//);
      expect(bundled.filter((path) => HEAVY.test(path) && !NOT_HEAVY.has(path) && path !== 'emulator/pid-file.ts')).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('emulator start loads its action in a few files, each module once: the chunks the same commands load are one file (tsup.config.ts, planMerges)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-start-loads-'));
    const log = join(dir, 'loaded.txt');
    writeFileSync(log, '');
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MERCHANT_KIT_'))), NO_COLOR: '1', MK_IMPORTS_LOG: log };
    const child = spawn(process.execPath, ['--import', writeImportLogHook(dir), cliEntry(), 'emulator', 'start', '--memory', '--port', '0', '--json'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((r) => child.on('close', r));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    try {
      await waitFor(() => out.includes('"ready"'), () => `the ready line of emulator start; stdout: ${out}\nstderr: ${err}`);
      const urls = [...new Set(readFileSync(log, 'utf8').split('\n'))];
      const files = urls.filter((url) => url.startsWith('file:') && url.includes('/dist/'));
      // esbuild's chunks alone were 59 files (the SQLite adapter, the data folder, restore… are each a
      // chunk of their own because other commands import them lazily).
      expect(files.length, files.join('\n')).toBeLessThanOrEqual(32);
      // A module's comment can come twice in one file (esbuild places the parts of a module apart), never in two files.
      const bundled = files.flatMap((url) => [...new Set(bundledModules(url))]);
      expect(bundled).toEqual(expect.arrayContaining(['src/cli/commands/emulator/start.ts', 'emulator/server.ts', 'emulator/clock.ts', 'node_modules/fastify/fastify.js', 'node_modules/zod/v4/core/core.js']));
      expect(bundled.filter((module, i) => bundled.indexOf(module) !== i)).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unexpected failure is one redacted line without a stack (the stack only with --verbose)', async () => {
    // A server that answers GET /me with an empty object: printing it fails inside the CLI.
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as AddressInfo;
      const env = { MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: 'svk_test_abc.svs_test_secretsecret' };
      const r = await cli(['me'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: Cannot read properties of undefined/);
      const verbose = await cli(['me', '--verbose'], { env });
      expect(verbose.code).toBe(1);
      expect(verbose.stderr).toMatch(/\n\s+at /);
      for (const text of [r.stderr, verbose.stderr]) expect(text).not.toMatch(/secretsecret/);
    } finally {
      server.close();
    }
  });

});
