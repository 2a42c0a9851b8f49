import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';

// The quick start of docs/client.md, copied unchanged into a project that has merchant-kit installed
// (a symlink to this repository, built), and run with plain `node example.mjs`.
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mk-client-pkg-'));
beforeAll(async () => {
  await ensureBuilt();
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'merchant-kit'), 'dir');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the package', () => {
  it('runs the quick start of docs/client.md as example.mjs', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## Quick start')))![1]!;
    writeFileSync(join(dir, 'example.mjs'), code);
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: dir, timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^connected to store str_\w+ in test$/);
    expect(lines.filter((l) => l.startsWith('imported '))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^404 not_found: .+ \(req_\w+\)$/);
  }, 60_000);

  it('exports the client from the package root', async () => {
    const script = "import * as mk from 'merchant-kit'; const e = new mk.ApiError({ status: 0, code: 'network_error', message: 'm' }); " +
      "console.log(typeof mk.MerchantClient, typeof mk.EmulatorControl, typeof mk.Paginator, 'requestId' in e, typeof mk.ALL_ENDPOINTS);";
    writeFileSync(join(dir, 'exports.mjs'), script);
    const { stdout } = await run(process.execPath, ['exports.mjs'], { cwd: dir });
    expect(stdout.trim()).toBe('function function function true object');
  });

  // issue 27: the root exported 226 names, the emulator's and the CLI's internals of the contract among them.
  it('exports from the root what docs/client.md lists, and none of the contract\'s internals', async () => {
    writeFileSync(join(dir, 'keys.mjs'), "import * as mk from 'merchant-kit'; console.log(JSON.stringify(Object.keys(mk)));");
    const keys = JSON.parse((await run(process.execPath, ['keys.mjs'], { cwd: dir })).stdout) as string[];
    const doc = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## What the package exports'), doc.indexOf('\n## ', doc.indexOf('## What the package exports') + 1));
    const listed = [...section.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]);
    expect(keys.filter((k) => !listed.includes(k))).toEqual([]);
    for (const internal of ['seededRandom', 'IdFactory', 'ulid', 'parseOrThrow', 'issuesToDetails', 'ERROR_CATALOGUE', 'controlFault', 'queryInt', 'panelProductInput', 'fillPath', 'isLoopbackHost']) {
      expect(keys, internal).not.toContain(internal);
    }
    for (const promised of ['MerchantClient', 'EmulatorControl', 'ApiError', 'Paginator', 'ALL_ENDPOINTS', 'verify', 'productInput', 'formatAmount', 'ORDER_STATUSES']) {
      expect(keys, promised).toContain(promised);
    }
  });
});
