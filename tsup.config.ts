import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { build as esbuild, type Metafile } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import * as coreEndpoints from './src/contract/endpoints.js';
import * as orderEndpoints from './src/contract/orders-endpoints.js';
import * as webhookEndpoints from './src/contract/webhooks-endpoints.js';

// The JavaScript of the package (declarations come after: `rollup -c rollup.types.config.mjs`).
// ESM for everything, the CLI included; CommonJS as well for the three library entries, so that
// `require('merchant-kit')` works on every Node the package supports (Node 20.18 has no
// `require(esm)` without a flag). No source maps: they are not shipped.

const library = {
  'src/index': 'src/index.ts',
  'emulator/index': 'emulator/index.ts',
  'checks/index': 'checks/index.ts',
};

const common: Options = {
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  splitting: true,
  sourcemap: false,
  dts: false,
  // `npm run build` stays quiet: errors only, no listing of every chunk.
  silent: true,
};

// The CLI is a build of its own: it carries its dependencies' JavaScript in its chunks (zod 4 and
// undici are each about a hundred small files, ajv, semver and fastify's helpers as many again), so
// that a start reads a few dozen files instead of ~600 (bench/cli-start.mjs). The library entries
// keep importing them: a user's zod is the one the exported schemas are made of, and their bundler
// dedupes the rest. Kept out: native modules (better-sqlite3 finds its .node file from its own
// folder), pg (loaded only with --database-url).
const KEEP_EXTERNAL = ['better-sqlite3', 'pg'];

/**
 * Modules fastify requires only for what the emulator does not use: its JSON-schema compilers (the
 * routes validate with zod, emulator/json-schemas.ts gives fastify compilers of our own) and
 * `inject()` (tests only, through the library entry). Bundled, their ~700 kB would be parsed at every
 * `emulator start` without running; in the CLI's build they are a module that says why it is missing.
 */
const UNUSED_BY_THE_CLI = /^(ajv|ajv-formats|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler|fast-json-stringify|light-my-request)$/;
const unusedByTheCli: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'unused-by-the-cli',
  setup(build) {
    build.onResolve({ filter: UNUSED_BY_THE_CLI }, (args) => ({ path: args.path, namespace: 'unused-by-the-cli' }));
    build.onLoad({ filter: /.*/, namespace: 'unused-by-the-cli' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of merchant-kit's command-line build (tsup.config.ts, unusedByTheCli)`)});`,
      loader: 'js',
    }));
  },
};

/**
 * semver, in the CLI's build, is evaluated on its first call: fastify's plugin-utils requires it when
 * fastify loads but calls it only for a plugin that names the fastify versions it supports
 * (fastify-plugin's `fastify` option), which none of the emulator's do. Evaluated at load (its ~40
 * regular expressions, each made three times), it cost ~8 ms of CPU to every `emulator start`.
 */
const lazySemver: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'lazy-semver',
  setup(build) {
    build.onResolve({ filter: /^semver$/ }, (args) =>
      /[\\/]node_modules[\\/]fastify[\\/]/.test(args.importer) ? { path: 'semver', namespace: 'lazy-semver', pluginData: { dir: dirname(args.importer) } } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-semver' }, (args) => ({
      contents: "let semver; module.exports = new Proxy({}, { get: (_, name) => (semver ??= require('semver/index.js'))[name] });",
      resolveDir: (args.pluginData as { dir: string }).dir,
      loader: 'js',
    }));
  },
};

/**
 * Node's own modules that a bundled dependency requires when it loads but uses only for something the
 * CLI never asks for: in the CLI's build each is required on its first use instead. Node compiles a
 * built-in module the first time it is required, and these pull in others (issue 27: ~630 CLI
 * processes per suite run; CPU measured in-process after `net` and `stream`, which every request
 * command loads anyway):
 * - undici's HTTP/2 client (`client-h2.js`, which requires `node:http2` and with it `tls`, fs/promises,
 *   readline and the file watchers: ~12 ms of CPU). undici calls it only for a TLS connection whose
 *   server picked h2 by ALPN, which it offers only when a dispatcher sets `allowH2`; the CLI's don't.
 *   It exports one function.
 * - commander's `node:child_process` (which requires `net`, `dgram` and the streams: ~8 ms for
 *   `--version`, ~1 ms after a request command's `net`): commander spawns only for a subcommand that
 *   is an executable file of its own, and the CLI registers none. tsup resolves `node:` modules
 *   before any plugin, so this one is the line of commander's source that requires it, rewritten;
 *   the build fails if a new commander no longer has that line.
 */
const lazyH2: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'lazy-h2',
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)
        ? { path: 'undici/lib/dispatcher/client-h2.js', namespace: 'lazy-h2', pluginData: { dir: dirname(args.importer) } }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-h2' }, (args) => ({
      contents: "let connectH2; module.exports = function (...args) { return (connectH2 ??= require('./client-h2.js')).apply(this, args); };",
      resolveDir: (args.pluginData as { dir: string }).dir,
      loader: 'js',
    }));
  },
};
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'lazy-child-process',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(COMMANDER_CHILD_PROCESS)) throw new Error(`lazyChildProcess (tsup.config.ts): commander's lib/command.js no longer has \`${COMMANDER_CHILD_PROCESS}\``);
      const lazy = "let loadedChildProcess; const childProcess = new Proxy({}, { get: (_, name) => (loadedChildProcess ??= require('node:child_process'))[name] });";
      return { contents: source.replace(COMMANDER_CHILD_PROCESS, lazy), loader: 'js' };
    });
  },
};

/** `undici` in the CLI's build is src/cli/undici.mjs: the parts of it that are used (that file says why). */
const slimUndici: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'slim-undici',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: resolve('src/cli/undici.mjs') }));
  },
};
/**
 * The client's connection pool in the CLI's build is src/client/pool-node-http.ts, on Node's own HTTP
 * client, instead of src/client/pool.ts, on undici: a request command then loads and compiles none of
 * undici (issue 27; the files say why). Only the transport's import is redirected: pool-node-http.ts
 * itself loads pool.ts, and with it undici, for a caller that passes an undici dispatcher.
 */
const cliPool: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'cli-pool',
  setup(build) {
    build.onResolve({ filter: /^\.\/pool\.js$/ }, (args) =>
      /[\\/]src[\\/]client[\\/]transport\.ts$/.test(args.importer) ? { path: resolve(dirname(args.importer), 'pool-node-http.ts') } : undefined,
    );
  },
};
/**
 * The endpoint rows as the client reads them (`id`, `method`, `path`, `idempotency`: merchant-client.ts's
 * `request`), for src/client/resources.ts in the CLI's build. The rows themselves hold zod schemas
 * (validation, types, OpenAPI): importing them loads zod (~750 kB of JavaScript) and builds every
 * schema of the API, which a command such as `merchant-kit me` never uses. Read from the contract's
 * own rows when the build runs, so there is no second copy; a name resources.ts imports that is not a
 * row fails the build. The library entries keep the rows themselves (their users import schemas).
 */
const ROUTE_FIELDS = ['id', 'method', 'path', 'idempotency'] as const;
const ENDPOINT_MODULES: Record<string, Record<string, unknown>> = {
  endpoints: coreEndpoints,
  'orders-endpoints': orderEndpoints,
  'webhooks-endpoints': webhookEndpoints,
};
const clientRoutes: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'client-routes',
  setup(build) {
    build.onResolve({ filter: /\/contract\/(endpoints|orders-endpoints|webhooks-endpoints)\.js$/ }, (args) => {
      if (!/[\\/]src[\\/]client[\\/]resources\.ts$/.test(args.importer)) return undefined;
      return { path: /([^/]+)\.js$/.exec(args.path)![1], namespace: 'client-routes' };
    });
    build.onLoad({ filter: /.*/, namespace: 'client-routes' }, (args) => {
      const rows = Object.entries(ENDPOINT_MODULES[args.path]!).filter(
        ([, v]) => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { path?: unknown }).path === 'string',
      );
      const contents = rows
        .map(([name, row]) => `export const ${name} = Object.freeze(${JSON.stringify(Object.fromEntries(ROUTE_FIELDS.map((f) => [f, (row as Record<string, unknown>)[f]])))});`)
        .join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * zod's messages in English only, in the CLI's build: zod's index exports every locale it has
 * (`z.locales`, 64 files, ~360 kB of its ~750 kB), which every command that validates with the
 * contract, and every emulator start, would compile. Nothing here picks another locale (the API's
 * Spanish messages are the contract's own); English is the one zod itself configures (classic/schemas.js).
 */
const englishOnlyZod: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      // A name without the build machine's path: esbuild writes it into the chunk as a comment.
      return { path: 'zod/v4/locales/index.js', namespace: 'zod-locales', pluginData: { dir: resolve(dirname(args.importer), '../locales') } };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: (args.pluginData as { dir: string }).dir,
      loader: 'js',
    }));
  },
};

/**
 * The licenses of the packages the CLI's build carries, in `src/cli/THIRD-PARTY-NOTICES.md` beside its
 * entry: their MIT, ISC and BSD licenses ask that the notice go with every copy of their code, and
 * the bundle is one. Read from esbuild's list of the inputs it bundled, so it names exactly those.
 */
const thirdPartyNotices: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'third-party-notices',
  setup(build) {
    build.initialOptions.metafile = true;
    build.onEnd((result) => {
      if (!result.metafile || !build.initialOptions.outdir) return;
      const dirs = new Set<string>();
      for (const input of Object.keys(result.metafile.inputs)) {
        const found = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
        if (found) dirs.add(found[1]!);
      }
      const notices = [...dirs].map((dir) => {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
        const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
        return { name: pkg.name, text: `## ${pkg.name} ${pkg.version}\n\n${file ? readFileSync(join(dir, file), 'utf8').trim() : `License: ${pkg.license ?? 'see the package'}`}\n` };
      });
      const unique = [...new Map(notices.map((n) => [`${n.text}`, n])).values()].sort((a, b) => a.name.localeCompare(b.name));
      const folder = join(build.initialOptions.outdir, 'src', 'cli');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'THIRD-PARTY-NOTICES.md'),
        `# Third-party notices\n\nThe command-line interface's build (this folder and the chunks it imports) includes code of these packages, under these licenses.\n\n${unique.map((n) => n.text).join('\n')}`);
    });
  },
};

/**
 * The CLI's build puts what every command loads into one file, `cli-core.js` beside the chunks. esbuild
 * splits by the set of entries that reach a module, and it counts `main.js` as one entry among the
 * commands' actions (each a dynamic import) although every command loads it: so the modules main.js
 * imports came out as ~20 chunks, some of a few hundred bytes, that every command loads one by one.
 * Node's ESM loader resolves, reads, translates and compiles each file on its own: merged, a command
 * costs ~12 ms less CPU (issue 27; bench/cli-start.mjs). Done after tsup has written the build: the
 * chunks main.js reaches by static imports are bundled again by esbuild into one module that
 * re-exports all they exported (in main.js's order of imports, so they run in the same order), every
 * file of the CLI's build that imported one of them imports cli-core.js instead, and they are removed.
 * The comments that name each bundled module (`// node_modules/commander/lib/command.js`, read by
 * test/cli/program.test.ts) are kept. The build fails rather than write a core that differs: two of
 * the chunks exporting the same name, a name missing from the core, or a module comment lost.
 */
const CORE = 'cli-core.js';
const MODULE_COMMENT = /^\/\/ ((?:\.\.\/)*(?:node_modules|src|emulator|checks)\/\S+)$/gm;
let cliMetafile: Metafile | undefined;
const keepMetafile: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'keep-metafile',
  setup(build) {
    build.initialOptions.metafile = true;
    build.onEnd((result) => void (cliMetafile = result.metafile));
  },
};
/** The chunks a file of the build imports statically (`import … from`), as the metafile names them. */
const staticImports = (meta: Metafile, file: string) =>
  meta.outputs[file]!.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path);

/**
 * Bundles chunks of the CLI's build (in the order given: each after what it imports) into one module
 * that re-exports all they exported, keeping the comments that name each module, and writes it to
 * `target`. Every other file of the build that imported one of them imports `target` instead, and the
 * chunks are removed: each module keeps exactly one home (two copies of a module in one process would
 * be two `ApiError` classes, two clocks). `built` holds the files of the build (updated here). The build
 * fails rather than write a file that differs: two of the chunks exporting the same name, a name
 * missing, or a module comment lost.
 */
async function mergeChunks(label: string, ordered: string[], target: string, built: Set<string>): Promise<void> {
  const members = new Set(ordered.map((file) => resolve(file)));
  const names = ordered.flatMap((file) => exportedNames(file));
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  if (twice.length) throw new Error(`${label} (tsup.config.ts): two chunks export ${twice.join(', ')}`);
  const comments = ordered.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(MODULE_COMMENT)].map((m) => m[1]!));
  const result = await esbuild({
    stdin: { contents: ordered.map((file) => `export * from ${JSON.stringify(resolve(file))};`).join('\n'), resolveDir: dirname(target), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // esbuild keeps legal comments only: the module comments pass through it as such.
    legalComments: 'inline',
    plugins: [
      {
        name: 'cli-chunks',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const path = /^[./]/.test(args.path) ? resolve(args.resolveDir, args.path) : args.path;
            return members.has(path) ? { path } : { path: args.path, external: true };
          });
          build.onLoad({ filter: /.*/ }, (args) => ({ contents: readFileSync(args.path, 'utf8').replace(MODULE_COMMENT, '//! merchant-kit-module $1'), loader: 'js' }));
        },
      },
    ],
  });
  // esbuild names each chunk it merged in a comment of the same form, by its path from the working
  // folder (`// dist/chunk-….js`): dropped, so that the file's comments name modules only.
  const chunkComments = new Set(ordered.map((file) => `// ${relative(process.cwd(), resolve(file)).split('\\').join('/')}`));
  const text = result.outputFiles[0]!.text
    .split('\n')
    .filter((line) => !chunkComments.has(line))
    .join('\n')
    .replace(/^(\s*)\/\/! merchant-kit-module /gm, '$1// ');
  const exported = new Set(Object.values(result.metafile.outputs)[0]!.exports);
  const missing = names.filter((name) => !exported.has(name));
  if (missing.length) throw new Error(`${label} (tsup.config.ts): ${basename(target)} does not export ${missing.join(', ')}`);
  const kept = [...text.matchAll(MODULE_COMMENT)].map((m) => m[1]!);
  if (kept.length !== comments.length) throw new Error(`${label} (tsup.config.ts): ${comments.length} module comments in the chunks, ${kept.length} in ${basename(target)}`);
  writeFileSync(target, text);
  for (const file of members) built.delete(file);
  built.add(resolve(target));
  for (const file of built) {
    const source = readFileSync(file, 'utf8');
    const rewritten = source.replace(/(["'])(\.{1,2}\/[^"'\n]+\.js)\1/g, (literal, quote: string, specifier: string) => {
      if (!members.has(resolve(dirname(file), specifier))) return literal;
      const path = relative(dirname(file), target);
      return `${quote}${path.startsWith('.') ? path : `./${path}`}${quote}`;
    });
    if (rewritten !== source) writeFileSync(file, rewritten);
  }
  for (const file of ordered) rmSync(file);
}

/** The names a file of the CLI's build exports, read from its `export { a, b as c };` statement(s). */
function exportedNames(file: string): string[] {
  const names = [...readFileSync(file, 'utf8').matchAll(/^export \{([^}]*)\};?$/gm)].flatMap((m) => m[1]!.split(','));
  return names.map((n) => n.trim()).filter(Boolean).map((n) => n.split(/\s+as\s+/).pop()!);
}

/** How the CLI's chunks are merged: cli-core.js, then one file for each group (chunks as the metafile names them). */
interface MergePlan {
  core: string[];
  groups: string[][];
}

/**
 * The chunks the same commands load, merged (issue 27). esbuild makes a chunk of the modules reached by
 * the same set of entries, and every lazily imported module is an entry: the SQLite adapter, the data
 * folder, a bundle's restore, the Postgres adapter… So the action of `emulator start` came out as 57
 * files that every start read and compiled one by one (bench/cli-start.mjs). Here:
 * 1. main.js's chunks are cli-core.js, as before (mergeCore);
 * 2. the chunks that the same commands' actions load statically (the same set of
 *    `src/cli/commands/…` entries reach them) are one file: no command loads a module more than
 *    before. A lazily imported module that two commands (or the core and a command) import
 *    themselves counts as one of those entries: the data folder, which `emulator export --data` and
 *    `--detach`'s parent load, is not merged with what only `emulator start` loads. One behind it (the
 *    SQLite export, behind the data folder's export) loads the whole file of the chunks it imports:
 *    `emulator export --data` loads what only `emulator start` loads (~45 ms of CPU more, measured).
 *    Chunks that no action loads statically stay as they are.
 * Imports follow the sets of commands (a chunk that one imports is loaded by all that load it), so no
 * two files import each other. One home per module: test/cli/build-homes.test.ts.
 */
function planMerges(meta: Metafile): MergePlan {
  const main = Object.keys(meta.outputs).find((file) => /(^|\/)src\/cli\/main\.js$/.test(file));
  if (!main) throw new Error('planMerges (tsup.config.ts): no src/cli/main.js among the outputs');
  const imports = (file: string) => staticImports(meta, file);
  // Every file after what it imports, main.js's chunks first, in the order main.js imports them.
  const order: string[] = [];
  const visit = (file: string) => {
    for (const path of imports(file)) {
      if (order.includes(path)) continue;
      visit(path);
      order.push(path);
    }
  };
  visit(main);
  const mainChunks = new Set(order);
  const files = Object.keys(meta.outputs).filter((file) => file.endsWith('.js'));
  for (const file of files) visit(file);
  const entryOf = (file: string) => meta.outputs[file]!.entryPoint;
  const commands = files.filter((file) => /^src\/cli\/commands\/.+(?<!\/index)\.ts$/.test(entryOf(file) ?? ''));
  const closure = (file: string, seen = new Set<string>()) => {
    for (const path of imports(file)) if (!mainChunks.has(path) && !seen.has(path)) closure(path, seen.add(path));
    return seen;
  };
  // A lazily imported module that more than one command imports itself (the data folder: `emulator
  // export --data`, `--detach`'s parent and `emulator start`) counts as a loader of its chunks too:
  // merged with what only `emulator start` loads, they would make the others load all of it. One that a
  // single command imports (the homologation observer, the SQLite adapter behind the data folder) does not.
  const lazyImporters = new Map<string, Set<string>>();
  for (const file of files) {
    for (const i of meta.outputs[file]!.imports) if (i.kind === 'dynamic-import' && !i.external) lazyImporters.set(i.path, (lazyImporters.get(i.path) ?? new Set()).add(file));
  }
  const worlds = [...commands.map((command) => new Set([command, ...closure(command)])), new Set([main, ...mainChunks])];
  const shared = [...lazyImporters]
    .filter(([root, by]) => !commands.includes(root) && worlds.filter((world) => [...by].some((file) => world.has(file))).length > 1)
    .map(([root]) => root);
  const loaders = new Map<string, string[]>();
  for (const root of [...commands, ...shared]) for (const chunk of closure(root)) if (!entryOf(chunk)) loaders.set(chunk, [...(loaders.get(chunk) ?? []), root]);

  // One group for each set of loaders, the core one more: each will be one file.
  const byLoaders = new Map<string, Set<string>>();
  for (const [chunk, by] of loaders) byLoaders.set(by.join(' '), (byLoaders.get(by.join(' ')) ?? new Set()).add(chunk));
  const groups = [mainChunks, ...byLoaders.values()];

  // The files after the merge import each other in one direction only: a cycle would run a module
  // before one it imports (ESM evaluates a cycle's files in an order of its own).
  const groupOf = new Map<string, Set<string>>();
  for (const group of groups) for (const chunk of group) groupOf.set(chunk, group);
  const membersOf = (file: string) => [...(groupOf.get(file) ?? [file])];
  const state = new Map<string, 'visiting' | 'done'>();
  const walk = (node: string) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') throw new Error(`planMerges (tsup.config.ts): the merged files would import each other (${node})`);
    state.set(node, 'visiting');
    for (const member of membersOf(node)) for (const path of imports(member)) if (membersOf(path)[0] !== node) walk(membersOf(path)[0]!);
    state.set(node, 'done');
  };
  for (const file of files) walk(membersOf(file)[0]!);
  return {
    core: order.filter((chunk) => mainChunks.has(chunk)),
    groups: groups.filter((group) => group !== mainChunks && group.size > 1).map((group) => order.filter((chunk) => group.has(chunk))),
  };
}

/** Merges the CLI build's chunks as planMerges says: cli-core.js, then a `chunk-<hash>.js` for each group. */
async function mergeCliChunks(): Promise<void> {
  const meta = cliMetafile;
  if (!meta) throw new Error('mergeCliChunks (tsup.config.ts): the CLI build left no metafile');
  const plan = planMerges(meta);
  const built = new Set(Object.keys(meta.outputs).filter((file) => file.endsWith('.js')).map((file) => resolve(file)));
  const main = [...built].find((file) => /[\\/]src[\\/]cli[\\/]main\.js$/.test(file))!;
  const outDir = dirname(dirname(dirname(main)));
  await mergeChunks('mergeCore', plan.core, join(outDir, CORE), built);
  for (const group of plan.groups) {
    const hash = createHash('sha256').update(group.map((file) => basename(file)).join('\n')).digest('hex').slice(0, 8).toUpperCase();
    await mergeChunks('mergeByCommands', group, join(outDir, `chunk-${hash}.js`), built);
  }
}

const cli: Options = {
  ...common,
  entry: { 'src/cli/main': 'src/cli/main.ts' },
  format: ['esm'],
  noExternal: [/^(?!better-sqlite3$|pg$|pg\/)[^./]/],
  external: KEEP_EXTERNAL,
  esbuildPlugins: [slimUndici, cliPool, unusedByTheCli, lazySemver, lazyH2, lazyChildProcess, clientRoutes, englishOnlyZod, thirdPartyNotices, keepMetafile],
  onSuccess: mergeCliChunks,
  // CommonJS code bundled into ESM calls `require` for Node's own modules: this gives it one.
  banner: { js: "import { createRequire as __cliCreateRequire } from 'node:module'; const require = __cliCreateRequire(import.meta.url);" },
};

export default defineConfig((flags) => {
  // The two builds run at once into dist/, so neither may clean it (one would delete what the other
  // wrote): it is emptied once, before both. A build into another folder (`--out-dir`, the CLI tests'
  // private builds) empties that one and leaves dist/ to the commands running from it.
  rmSync(flags.outDir ?? 'dist', { recursive: true, force: true });
  return [
    { ...common, entry: library, format: ['esm'] },
    cli,
    // Split too, so that the three CommonJS entries share one copy of each module (one ApiError class).
    { ...common, entry: library, format: ['cjs'] },
  ];
});
