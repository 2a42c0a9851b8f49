import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/merchant-kit.js');

function cli(...args: string[]) {
  return run(process.execPath, [bin, ...args], { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
}

let dir: string;
beforeAll(async () => {
  if (!existsSync(join(root, 'dist/src/cli/main.js'))) await run('npx', ['tsup'], { cwd: root });
  dir = await mkdtemp(join(tmpdir(), 'merchant-kit-openapi-'));
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('merchant-kit openapi', () => {
  it('prints the OpenAPI 1.0.4 document on stdout and nothing else', async () => {
    const { stdout, stderr } = await cli('openapi');
    const doc = JSON.parse(stdout);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.4');
    expect(doc.paths['/me'].get.operationId).toBe('getMe');
    expect(stderr).toBe('');
  });

  it('writes the document to --out, creating the folder', async () => {
    const out = join(dir, 'nested', 'openapi.json');
    const { stdout } = await cli('openapi', '--out', out);
    expect(stdout).toBe('');
    const doc = JSON.parse(await readFile(out, 'utf8'));
    expect(doc.info.version).toBe('1.0.4');
    expect(Object.keys(doc.paths)).toContain('/catalog/batch');
  });

  it('is listed in --help', async () => {
    const { stdout } = await cli('--help');
    expect(stdout).toMatch(/openapi/);
    const sub = await cli('openapi', '--help');
    expect(sub.stdout).toMatch(/--out <file>/);
  });

  it('exits 2 on an unknown option', async () => {
    await expect(cli('openapi', '--nope')).rejects.toMatchObject({ code: 2 });
  });
});
