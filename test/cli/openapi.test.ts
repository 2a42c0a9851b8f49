import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildPrivateCli, cliEntry } from '../helpers/cli-core.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);

function cli(...args: string[]) {
  return run(process.execPath, [cliEntry(), ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
}

let dir: string;
let removeBuild: () => void = () => undefined;
afterAll(() => removeBuild());

beforeAll(async () => {
  removeBuild = await buildPrivateCli(); // a private build of the current sources
  dir = await mkdtemp(join(tmpdir(), 'merchant-kit-openapi-'));
});
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
