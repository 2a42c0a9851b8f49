import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_ENV, runFolder } from './run-build.js';

// vitest's globalSetup (vitest.config.ts), once per run, for both projects (the first setup makes the
// run's names, the environment carries them to every worker):
// - the run's own folder, where the first test file that needs the built CLI copies it for every file
//   of the run (helpers/run-build.ts), removed when the run ends;
// - with a PostgreSQL server, the name of the run's migrated template database, made by the first
//   file that asks (helpers/postgres.ts) and dropped when the run ends.

const DAY_MS = 86_400_000;

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env[RUN_ENV]) return async () => undefined;
  const folder = runFolder();
  process.env[RUN_ENV] = folder;
  // What a killed run left behind.
  const parent = join(folder, '..');
  try {
    for (const name of readdirSync(parent)) {
      const path = join(parent, name);
      if (name.startsWith('merchant-kit-run-') && Date.now() - statSync(path).mtimeMs > DAY_MS) rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // No cache folder yet.
  }
  let template: string | undefined;
  if (process.env.MERCHANT_KIT_TEST_DATABASE_URL) {
    const postgres = await import('./postgres.js');
    template = postgres.newTemplateName();
    process.env[postgres.TEMPLATE_ENV] = template;
    await postgres.dropStaleTemplates();
  }
  return async () => {
    rmSync(folder, { recursive: true, force: true });
    for (const end of ['lock', 'partial', 'failed']) rmSync(`${folder}.${end}`, { recursive: true, force: true });
    delete process.env[RUN_ENV];
    if (template) {
      const postgres = await import('./postgres.js');
      await postgres.dropTemplate(template);
      delete process.env[postgres.TEMPLATE_ENV];
    }
  };
}
