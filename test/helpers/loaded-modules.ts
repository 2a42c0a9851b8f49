import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A resolve hook in `dir` that logs every URL a Node process resolves to the file its environment
 * names (`MK_IMPORTS_LOG`): start the process with `--import <the returned path>` (as an argument or
 * in NODE_OPTIONS). Returns the path of the module that registers it.
 */
export function writeImportLogHook(dir: string): string {
  writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.MK_IMPORTS_LOG, result.url + '\\n');
  return result;
}`);
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`);
  return register;
}

/**
 * The modules bundled into the built files of a resolve log (one URL a line): the CLI's build
 * carries its dependencies in its chunks, and esbuild names each module in a comment above it
 * (`// node_modules/zod/v4/core/core.js`).
 */
export function bundledModules(log: string): string[] {
  return log
    .split('\n')
    .filter((url) => url.startsWith('file:') && url.endsWith('.js'))
    .flatMap((url) => [...readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ ((?:node_modules|src|emulator|checks)\/\S+)$/gm)].map((m) => m[1]!));
}
