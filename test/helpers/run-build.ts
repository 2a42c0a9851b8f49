import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './cli.js';
import { waitFor } from './wait.js';

/** The environment variable that names the run's folder (set by helpers/global-setup.ts). */
export const RUN_ENV = 'MERCHANT_KIT_TEST_RUN';

/**
 * A new folder name for one run, under node_modules/.cache so that the copied bundle still resolves
 * its dependencies from the repo's node_modules.
 */
export function runFolder(): string {
  return join(ROOT, 'node_modules', '.cache', `merchant-kit-run-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Without a global setup (a file run by another config): one folder for this process. */
let own: string | undefined;

/**
 * The run's private copy of the built CLI (`bin/`, `dist/`, `package.json`; `fixtures/` linked), made
 * once per run by the first test file that asks (after `ensureBuilt()`), then shared by every file:
 * a rebuild of dist/ meanwhile (sources edited during a run) cannot pull chunks from under running
 * commands, and no file pays for a build of its own. Returns the copy's root.
 */
export async function runBuild(): Promise<string> {
  const folder = process.env[RUN_ENV] ?? (own ??= runFolder());
  const main = join(folder, 'dist', 'src', 'cli', 'main.js');
  if (existsSync(main)) return folder;
  mkdirSync(join(folder, '..'), { recursive: true });
  const lock = `${folder}.lock`;
  let mine = false;
  try {
    mkdirSync(lock);
    mine = true;
  } catch {
    // Another file of the run is making it.
  }
  const failed = `${folder}.failed`;
  if (!mine) {
    // A build takes seconds; the limit only bounds a builder that died (its lock stays).
    await waitFor(
      () => existsSync(main) || existsSync(failed),
      () => `the run's copy of the built CLI (another test file holds ${lock})`,
      { limitMs: 240_000, intervalMs: 100 },
    );
    if (!existsSync(main)) throw new Error(`the run's build failed in another test file: ${readFileSync(failed, 'utf8')}`);
    return folder;
  }
  try {
    await ensureBuilt();
    const partial = `${folder}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial);
    for (const name of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, name), join(partial, name), { recursive: true });
    if (!existsSync(join(partial, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ was being rebuilt while it was copied');
    symlinkSync(join(ROOT, 'fixtures'), join(partial, 'fixtures'), 'dir');
    renameSync(partial, folder);
  } catch (error) {
    writeFileSync(failed, String((error as Error).message ?? error));
    throw error;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return folder;
}
