// The package test's type checks of consumer projects (test/package/pack.test.ts), all in one Node
// process through TypeScript's API (issue 27): one program per setting, as `tsc` would build it from
// the same flags (or the project's tsconfig.json), reporting what that `tsc` with `skipLibCheck` off
// reports about merchant-kit: every diagnostic of the consumer's own files, of merchant-kit's
// declaration files and of any declaration file they reach (zod's, were they to import it), plus the
// options', configuration's and global diagnostics.
//
// What it leaves out, and why that is the point: the semantic check of TypeScript's lib files and of
// @types/node, which are the user's, not merchant-kit's, and which seven `tsc` processes each checked
// again (lib.dom.d.ts alone was 7 s of each). A conflict between merchant-kit's declarations and
// those is still reported, on merchant-kit's side. And declaration files are parsed once for all the
// settings whose options parse them alike (TypeScript's document registry, as its language service
// shares them between programs).
//
//   node test/helpers/consumer-types.mjs <jobs.json>
//
// jobs.json: [{ name, cwd, flags: string[] | null (null: `-p .`), files: string[], noEmit, listOnly }].
// Prints one JSON array: [{ name, status, output, files }] (`files`: the program's files, as
// `--listFilesOnly` prints them). Plain JavaScript: it runs in a process of its own, without vitest.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ts = createRequire(join(ROOT, 'package.json'))('typescript');

const jobs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, '/');

// Installed files do not change while this runs: their reads and existence checks are shared by all
// the programs (module resolution asks the same questions in every setting).
const texts = new Map();
const exists = new Map();
const installed = (path) => path.includes('/node_modules/');
const once = (cache, key, read) => {
  if (!cache.has(key)) cache.set(key, read());
  return cache.get(key);
};

/**
 * Files whose diagnostics are not merchant-kit's: TypeScript's lib files and the user's @types/node,
 * with undici-types, its own dependency (the 37 files of Node's fetch types, which merchant-kit's
 * declarations do not name; the installed `undici` they do name is checked).
 */
const notOurs = (program, file) => program.isSourceFileDefaultLibrary(file) || /\/node_modules\/(@types\/node|undici-types)\//.test(file.fileName);

function host(options, cwd) {
  const base = ts.createCompilerHost(options);
  // ts.sys keeps the directory it first saw: each project's programs name their own.
  base.getCurrentDirectory = () => cwd;
  const readFile = base.readFile.bind(base);
  const fileExists = base.fileExists.bind(base);
  base.readFile = (path) => (installed(path) ? once(texts, path, () => readFile(path)) : readFile(path));
  base.fileExists = (path) => (installed(path) ? once(exists, path, () => fileExists(path)) : fileExists(path));
  const getSourceFile = base.getSourceFile.bind(base);
  const { module, moduleResolution, moduleDetection, jsx, jsxImportSource, importHelpers, ...declarationKey } = options;
  base.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    if (!ts.isDeclarationFileName(fileName)) return getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate);
    const text = base.readFile(fileName);
    if (text === undefined) return undefined;
    // The registry keys a file by its module format and the options that change how a file is parsed
    // and bound. Of those, the module options and jsx change nothing in a declaration file (it is a
    // module only by its own imports and exports, whatever `module` and `moduleDetection` say), so
    // they are left out of the key: the settings of one target share lib files and @types/node.
    return registry.acquireDocument(fileName, declarationKey, ts.ScriptSnapshot.fromString(text), '1', ts.ScriptKind.TS, languageVersionOrOptions);
  };
  return base;
}

function check(job) {
  let options;
  let rootNames;
  let configDiagnostics = [];
  if (job.flags) {
    const parsed = ts.parseCommandLine([...job.flags, ...job.files]);
    options = parsed.options;
    if (options.outDir) options.outDir = resolve(job.cwd, options.outDir);
    rootNames = parsed.fileNames.map((f) => resolve(job.cwd, f));
    configDiagnostics = parsed.errors;
  } else {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(job.cwd, 'tsconfig.json'), {}, {
      ...ts.sys,
      getCurrentDirectory: () => job.cwd,
      onUnRecoverableConfigFileDiagnostic: (d) => configDiagnostics.push(d),
    });
    options = parsed.options;
    rootNames = parsed.fileNames;
    configDiagnostics.push(...parsed.errors);
  }
  if (job.noEmit) options.noEmit = true;
  const compilerHost = host(options, job.cwd);
  const program = ts.createProgram({ rootNames, options, host: compilerHost, configFileParsingDiagnostics: configDiagnostics });
  const files = program.getSourceFiles().map((f) => f.fileName);
  if (job.listOnly) return { name: job.name, status: 0, output: '', files };
  // The order of tsc's own report (executeCommandLine's emitFilesAndReportErrors), restricted to the
  // files above: syntax, then options and global, then semantics and declarations, then the emit.
  const reported = program.getSourceFiles().filter((f) => !notOurs(program, f));
  const diagnostics = [...program.getConfigFileParsingDiagnostics()];
  const before = diagnostics.length;
  for (const file of reported) diagnostics.push(...program.getSyntacticDiagnostics(file));
  if (diagnostics.length === before) {
    diagnostics.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    if (diagnostics.length === before) for (const file of reported) diagnostics.push(...program.getSemanticDiagnostics(file));
    if (options.noEmit && (options.declaration || options.composite) && diagnostics.length === before) {
      for (const file of reported) diagnostics.push(...program.getDeclarationDiagnostics(file));
    }
  }
  // File by file: `program.emit()` of the whole program first checks every file, lib files and
  // @types/node included (the emit resolver's full check, 5 s of this process), which `tsc` does anyway
  // and this process leaves out; each file's emit checks that file alone, done above. Same output.
  if (!options.noEmit) {
    for (const file of reported) if (!file.isDeclarationFile) diagnostics.push(...program.emit(file).diagnostics);
  }
  const output = ts.formatDiagnostics(ts.sortAndDeduplicateDiagnostics(diagnostics), {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => job.cwd,
    getNewLine: () => '\n',
  });
  return { name: job.name, status: diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error) ? 2 : 0, output, files };
}

process.stdout.write(JSON.stringify(jobs.map(check)));
