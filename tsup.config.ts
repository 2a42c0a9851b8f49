import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** `undici` in the CLI's build is src/cli/undici.mjs: the parts of it that are used (that file says why). */
const slimUndici: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'slim-undici',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: resolve('src/cli/undici.mjs') }));
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

const cli: Options = {
  ...common,
  entry: { 'src/cli/main': 'src/cli/main.ts' },
  format: ['esm'],
  noExternal: [/^(?!better-sqlite3$|pg$|pg\/)[^./]/],
  external: KEEP_EXTERNAL,
  esbuildPlugins: [slimUndici, unusedByTheCli, lazySemver, clientRoutes, englishOnlyZod, thirdPartyNotices],
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
