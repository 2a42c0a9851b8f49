import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';

// The package's public entry `merchant-kit/emulator`, imported and required by name as a user would
// (package.json `exports` points to dist/, so this is the built code: ESM for `import`, CommonJS for
// `require`, which Node 20.18 needs since it cannot require() ESM without a flag).

beforeAll(ensureBuilt);

type EmulatorModule = typeof import('../../emulator/index.js');

async function startsAndStops(pkg: EmulatorModule): Promise<void> {
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
}

describe("import('merchant-kit/emulator')", () => {
  it('starts an emulator in memory that answers over HTTP, then stops it', async () => {
    // A specifier in a variable, so that type-checking does not need dist/ (the types come from the source).
    const specifier = 'merchant-kit/emulator';
    expect(import.meta.resolve(specifier)).toMatch(/\/dist\/emulator\/index\.js$/);
    await startsAndStops((await import(/* @vite-ignore */ specifier)) as EmulatorModule);
  });

  it("builds the app for inject(), typed without fastify's types", async () => {
    const specifier = 'merchant-kit/emulator';
    const { buildEmulator } = (await import(/* @vite-ignore */ specifier)) as EmulatorModule;
    const { app } = await buildEmulator({ memory: true, clock: 'manual' });
    try {
      const res = await app.inject({ method: 'GET', url: '/_emulator/health' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ data: { ok: true } });
    } finally {
      await app.close();
    }
  });
});

describe("require('merchant-kit/emulator')", () => {
  it('starts an emulator from the CommonJS build, then stops it', async () => {
    const require = createRequire(import.meta.url);
    expect(require.resolve('merchant-kit/emulator')).toMatch(/\/dist\/emulator\/index\.cjs$/);
    await startsAndStops(require('merchant-kit/emulator') as EmulatorModule);
  });

  it("gives the client from require('merchant-kit') and the checks from require('merchant-kit/checks')", () => {
    const require = createRequire(import.meta.url);
    expect(require.resolve('merchant-kit')).toMatch(/\/dist\/src\/index\.cjs$/);
    const client = require('merchant-kit') as typeof import('../../src/index.js');
    expect(typeof client.MerchantClient).toBe('function');
    expect(new client.ApiError({ status: 0, code: 'network_error', message: 'm' })).toBeInstanceOf(Error);
    const checks = require('merchant-kit/checks') as typeof import('../../checks/index.js');
    // The seven mandatory checks and the optional import_recovery (issue 13).
    expect(checks.CHECKS).toHaveLength(8);
  });
});
