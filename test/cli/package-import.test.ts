import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';

// The package's public entry `merchant-kit/emulator`, imported by name as a user would (package.json
// `exports` points to dist/, so this is the built code).

beforeAll(ensureBuilt, 120_000);

describe("import('merchant-kit/emulator')", () => {
  it('starts an emulator in memory that answers over HTTP, then stops it', async () => {
    // A specifier in a variable, so that type-checking does not need dist/ (the types come from the source).
    const specifier = 'merchant-kit/emulator';
    const pkg = (await import(/* @vite-ignore */ specifier)) as typeof import('../../emulator/index.js');
    expect(import.meta.resolve(specifier)).toMatch(/\/dist\/emulator\/index\.js$/);
    expect(typeof pkg.startEmulator).toBe('function');
    expect(typeof pkg.buildEmulator).toBe('function');
    const running = await pkg.startEmulator({ port: 0, memory: true, clock: 'manual' });
    try {
      const test = running.stores.find((s) => s.environment === 'test')!;
      const res = await fetch(`${running.sandbox_base_url}/me`, { headers: { authorization: `Bearer ${test.credential}` } });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toBeTypeOf('object');
    } finally {
      await running.close();
    }
    await expect(fetch(`${running.url}/sandbox/v1/me`)).rejects.toThrow();
  });
});
