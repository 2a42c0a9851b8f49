import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';

beforeAll(ensureBuilt);

const IDS = ['connection', 'catalog', 'order_reception', 'signature_rejection', 'import', 'import_recovery', 'statuses', 'retries'];

describe('merchant-kit/checks', () => {
  it('is exported by package.json and built: the seven mandatory checks and the optional one, the runner, the writers, the tasks', async () => {
    const pkg = (await import(pathToFileURL(join(ROOT, 'package.json')).href, { with: { type: 'json' } })).default;
    expect(pkg.exports['./checks'].import).toEqual({ types: './dist/checks/index.d.ts', default: './dist/checks/index.js' });
    const file = join(ROOT, 'dist', 'checks', 'index.js');
    expect(existsSync(file)).toBe(true);
    const checks = await import(pathToFileURL(file).href);
    expect(checks.CHECKS.map((c: { id: string }) => c.id)).toEqual(IDS);
    expect(checks.CHECKS.filter((c: { mandatory: boolean }) => !c.mandatory).map((c: { id: string }) => c.id)).toEqual(['import_recovery']);
    expect(checks.CHECKS.every((c: { rule: string }) => c.rule.length > 20)).toBe(true);
    expect(typeof checks.gradeTasks).toBe('function');
    expect(typeof checks.runChecks).toBe('function');
    expect(typeof checks.writeReports).toBe('function');
    expect(checks.REPORT_SCHEMA_VERSION).toBe('1.2');
  });

  it('is required from CommonJS too (its own build, types as .d.cts)', async () => {
    const pkg = (await import(pathToFileURL(join(ROOT, 'package.json')).href, { with: { type: 'json' } })).default;
    expect(pkg.exports['./checks'].require).toEqual({ types: './dist/checks/index.d.cts', default: './dist/checks/index.cjs' });
    const checks = createRequire(import.meta.url)(join(ROOT, 'dist', 'checks', 'index.cjs'));
    expect(checks.CHECKS.map((c: { id: string }) => c.id)).toEqual(IDS);
    expect(typeof checks.runChecks).toBe('function');
  });
});
