import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialFiles } from '../helpers/docs.js';

// issue 14: docs/emulator.md's `… | tee new-store.json` wrote the new store's credential into the
// reader's working directory. The docs runner now fails a file whose blocks leave one there.

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('credentialFiles, the docs runner\'s check of the working directory', () => {
  it('finds a credential, a signing secret or a store token written in clear, in any folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-cred-'));
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'new-store.json'), '{"data":{"credential":"svk_test_ABCDEFGH.svs_test_0123456789abcdef"}}');
    writeFileSync(join(dir, 'out', 'hook.txt'), 'whsec_0123456789abcdefABCDEF');
    writeFileSync(join(dir, 'token.txt'), 'mks_0123456789abcdef');
    writeFileSync(join(dir, 'fine.json'), '{"key_id":"svk_test_ABCDEFGH","secret":"svs_test_…"}');
    expect(credentialFiles(dir).sort()).toEqual(['new-store.json', 'out/hook.txt', 'token.txt']);
  });

  it('leaves out the runner\'s shims, the config folder (profiles are encrypted) and the repo links', () => {
    dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-cred-'));
    for (const name of ['.bin', '.config', 'fixtures', 'docs']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'x'), 'svs_test_0123456789abcdef');
    }
    expect(credentialFiles(dir)).toEqual([]);
  });
});
