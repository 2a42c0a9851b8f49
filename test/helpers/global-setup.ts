import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_ENV, runFolder } from './run-build.js';

// vitest's globalSetup (vitest.config.ts): names the run's own folder, where the first test file that
// needs the built CLI puts a copy of it for every file of the run (helpers/run-build.ts), and removes
// it when the run ends. Both projects share it (the first setup names it, the environment carries it).

const DAY_MS = 86_400_000;

export default function setup(): () => void {
  if (process.env[RUN_ENV]) return () => undefined;
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
  return () => {
    rmSync(folder, { recursive: true, force: true });
    for (const end of ['lock', 'partial', 'failed']) rmSync(`${folder}.${end}`, { recursive: true, force: true });
    delete process.env[RUN_ENV];
  };
}
