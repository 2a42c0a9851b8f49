import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli, tempConfig, buildPrivateCli } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { activeProfileName, listProfiles, loadProfile, removeProfile, useProfile } from '../../src/cli/config/profiles.js';
import { ExitError } from '../../src/cli/errors.js';

// Profiles as a user meets them: `profile add` from stdin, list, use, remove, the encrypted store,
// and the precedence of flags over environment variables over the active profile.

let emu: TestEmulator;
let other: TestEmulator;
let receiver: Receiver;
let config: ReturnType<typeof tempConfig>;

let removeBuild: () => void = () => undefined;
afterAll(() => removeBuild());

// A config folder where `profile add sandbox` (emu's sandbox) has run once: the tests whose subject
// is what a saved profile does next start from a copy of it, instead of a CLI run each (issue 27).
let saved: ReturnType<typeof tempConfig>;
// And one where `profile add one` (emu) then `profile add two` (other) have run: one is active.
let savedTwo: ReturnType<typeof tempConfig>;

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  [emu, other] = await Promise.all([startTestEmulator(), startTestEmulator()]);
  receiver = await startReceiver('/');
  saved = tempConfig();
  savedTwo = tempConfig();
  const addTo = (target: ReturnType<typeof tempConfig>, name: string, on: TestEmulator) =>
    cli(['profile', 'add', name, '--base-url', on.running.sandbox_base_url, '--credential-stdin'], { input: `${on.test.credential}\n`, env: target.env });
  const [added, one] = await Promise.all([addTo(saved, 'sandbox', emu), addTo(savedTwo, 'one', emu)]);
  const two = await addTo(savedTwo, 'two', other);
  for (const r of [added, one, two]) expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  saved?.cleanup();
  savedTwo?.cleanup();
  await Promise.all([emu?.close(), other?.close(), receiver?.close()]);
});
beforeEach(() => {
  config = tempConfig();
});
afterEach(() => config.cleanup());

const add = (name: string, baseUrl: string, credential: string, env: NodeJS.ProcessEnv = {}) =>
  cli(['profile', 'add', name, '--base-url', baseUrl, '--credential-stdin'], { input: `${credential}\n`, env: { ...config.env, ...env } });

/** This test's config folder as `profile add sandbox` left it (a copy of the one made before the tests: its key and its profile file). */
const withSavedSandbox = () => cpSync(join(saved.dir, 'merchant-kit'), join(config.dir, 'merchant-kit'), { recursive: true });
/** This test's config folder as `profile add one` and `profile add two` left it. */
const withSavedOneAndTwo = () => cpSync(join(savedTwo.dir, 'merchant-kit'), join(config.dir, 'merchant-kit'), { recursive: true });

describe('profile add, list, use, remove', () => {
  it('adds a profile checked with GET /me; list shows name, base URL, environment, store and key id, never the secret', async () => {
    const added = await add('sandbox', emu.running.sandbox_base_url, emu.test.credential);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Profile "sandbox" saved: test, store .+ \(str_\w+\), key svk_test_\w+ — active\./);
    const list = await cli(['profile', 'list', '--json'], { env: config.env });
    const [p] = JSON.parse(list.stdout);
    expect(p).toMatchObject({ name: 'sandbox', base_url: emu.running.sandbox_base_url, environment: 'test', store_id: emu.test.store_id, active: true });
    expect(p.key_id).toBe(emu.test.credential.split('.')[0]);
    const human = await cli(['profile', 'list'], { env: config.env });
    expect(human.stdout).toMatch(/^\*\s+sandbox\s+http:\/\/127\.0\.0\.1:\d+\/sandbox\/v1\s+test/m);
    for (const text of [added.stdout, added.stderr, list.stdout, human.stdout]) expect(text).not.toMatch(/svs_/);
  });

  it('stores the credential AES-256-GCM encrypted: folder 0700, files 0600, no secret in clear', async () => {
    await add('sandbox', emu.running.sandbox_base_url, emu.test.credential);
    const dir = join(config.dir, 'merchant-kit');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'profiles.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);
    const text = readFileSync(join(dir, 'profiles.json'), 'utf8');
    expect(text).not.toContain(emu.test.credential.split('.')[1]);
    expect(JSON.parse(text).profiles.sandbox.credential).toEqual({ iv: expect.any(String), tag: expect.any(String), data: expect.any(String) });
  });

  it('uses the active profile; profile use switches; profile remove forgets', async () => {
    withSavedOneAndTwo();
    expect(JSON.parse((await cli(['me', '--json'], { env: config.env })).stdout).store.id).toBe(emu.test.store_id);
    expect((await cli(['profile', 'use', 'two'], { env: config.env })).code).toBe(0);
    expect(JSON.parse((await cli(['me', '--json'], { env: config.env })).stdout).store.id).toBe(other.test.store_id);
    expect((await cli(['profile', 'remove', 'two'], { env: config.env })).code).toBe(0);
    const none = await cli(['me'], { env: config.env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no base URL/);
    expect((await cli(['profile', 'use', 'nope'], { env: config.env })).code).toBe(2);
  });

  // issue 15: `profile use constructor` succeeded (every object has a `constructor`), then every
  // command failed with a misleading message. Names are looked up among the file's own profiles:
  // the lookup (profiles.ts, which use, remove and --profile go through) for every inherited name,
  // the built CLI's three commands for one (issue 27: 20 processes were 4 names × 5 commands).
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('profiles.ts refuses use, remove and load of %s as an unknown profile, changing nothing', (name) => {
    withSavedSandbox();
    const before = readFileSync(join(config.dir, 'merchant-kit', 'profiles.json'), 'utf8');
    for (const call of [useProfile, removeProfile, loadProfile]) {
      let refusal: unknown;
      try {
        call(name, config.env);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, call.name).toBeInstanceOf(ExitError);
      expect((refusal as ExitError).exitCode, call.name).toBe(2);
      expect((refusal as ExitError).message).toBe(`error: no profile named "${name}" (see: merchant-kit profile list)`);
    }
    expect(readFileSync(join(config.dir, 'merchant-kit', 'profiles.json'), 'utf8')).toBe(before);
    expect(listProfiles(config.env)).toMatchObject({ active: 'sandbox', profiles: [{ name: 'sandbox' }] });
  });

  it('refuses profile use/remove and --profile constructor as an unknown profile, changing nothing', async () => {
    const name = 'constructor';
    withSavedSandbox();
    const cases = [['profile', 'use', name], ['profile', 'remove', name], ['--profile', name, 'me']];
    const results = await Promise.all(cases.map((args) => cli(args, { env: config.env })));
    for (const [i, args] of cases.entries()) {
      const res = results[i]!;
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr.trim()).toBe(`error: no profile named "${name}" (see: merchant-kit profile list)`);
    }
    const [me, list] = await Promise.all([cli(['me', '--json'], { env: config.env }), cli(['profile', 'list', '--json'], { env: config.env })]);
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).store.id).toBe(emu.test.store_id);
    expect(JSON.parse(list.stdout).map((p: any) => [p.name, p.active])).toEqual([['sandbox', true]]);
  });

  it('refuses a live credential against the sandbox base path (and the reverse) before any call', async () => {
    const base = receiver.url.replace(/\/$/, '');
    const wrong = await add('x', `${base}/sandbox/v1`, emu.live.credential);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/did you mean http:\/\/127\.0\.0\.1:\d+\/v1\?/);
    const reverse = await add('x', `${base}/v1`, emu.test.credential);
    expect(reverse.code).toBe(2);
    expect(reverse.stderr).toMatch(/did you mean http:\/\/127\.0\.0\.1:\d+\/sandbox\/v1\?/);
    expect(receiver.received).toHaveLength(0);
  });

  it('without a terminal the credential may come from MERCHANT_KIT_CREDENTIAL or piped stdin; none at all is exit 2', async () => {
    const args = ['profile', 'add', 'piped', '--base-url', emu.running.sandbox_base_url];
    expect((await cli(args, { input: `${emu.test.credential}\n`, env: config.env })).code).toBe(0);
    const fromEnv = await cli([...args.slice(0, 2), 'fromenv', ...args.slice(3)], { env: { ...config.env, MERCHANT_KIT_CREDENTIAL: emu.test.credential } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const none = await cli([...args.slice(0, 2), 'none', ...args.slice(3)], { env: config.env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no credential was given/);
    const names = JSON.parse((await cli(['profile', 'list', '--json'], { env: config.env })).stdout).map((p: any) => p.name);
    expect(names).toEqual(['fromenv', 'piped']);
  });

  it('a rejected credential is not saved (exit 1, 401)', async () => {
    const bad = await add('bad', emu.running.sandbox_base_url, 'svk_test_AAAAAAAAAAAAAAAAAAAAAAAA.svs_test_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/401 unauthenticated/);
    expect(JSON.parse((await cli(['profile', 'list', '--json'], { env: config.env })).stdout)).toEqual([]);
  });

  it('a tampered profile file gives one clear line and exit 1, never a stack trace', async () => {
    withSavedSandbox();
    const path = join(config.dir, 'merchant-kit', 'profiles.json');
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.profiles.sandbox.base_url = 'http://127.0.0.1:9/sandbox/v1';
    writeFileSync(path, JSON.stringify(file));
    for (const r of await Promise.all([['me'], ['profile', 'list']].map((args) => cli(args, { env: config.env })))) {
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/cannot be decrypted/);
    }
    writeFileSync(path, '{not json');
    const broken = await cli(['me'], { env: config.env });
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim()).toMatch(/^error: the profile file .+ is damaged \(not valid JSON\)/);
  });

  it('MERCHANT_KIT_MASTER_KEY replaces the key file; another key cannot decrypt', async () => {
    const key = { MERCHANT_KIT_MASTER_KEY: 'a'.repeat(64) };
    expect((await add('sandbox', emu.running.sandbox_base_url, emu.test.credential, key)).code).toBe(0);
    expect((await cli(['me', '--json'], { env: { ...config.env, ...key } })).code).toBe(0);
    const wrong = await cli(['me'], { env: { ...config.env, MERCHANT_KIT_MASTER_KEY: 'b'.repeat(64) } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/cannot be decrypted/);
  });
});

describe('precedence: flags, then MERCHANT_KIT_*, then the active profile', () => {
  it('the environment beats the active profile; --base-url beats the environment; --profile beats the environment', async () => {
    withSavedOneAndTwo();
    expect(activeProfileName(config.env)).toBe('one');
    const storeOf = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const r = await cli([...args, 'me', '--json'], { env: { ...config.env, ...env } });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).store.id as string;
    };
    const envOther = { MERCHANT_KIT_BASE_URL: other.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: other.test.credential };
    // The commands only read the config folder: they run at once (issue 27).
    const [fromProfile, fromEnv, fromProfileVariable, underEnv, flagOverEnv, baseUrlFlag, piped] = await Promise.all([
      storeOf([]),
      storeOf([], envOther),
      storeOf([], { MERCHANT_KIT_PROFILE: 'two' }),
      storeOf([], { ...envOther, MERCHANT_KIT_PROFILE: 'one' }),
      storeOf(['--profile', 'one'], envOther),
      // --base-url with the environment's credential: the flag wins over MERCHANT_KIT_BASE_URL.
      storeOf(['--base-url', emu.running.sandbox_base_url], { ...envOther, MERCHANT_KIT_CREDENTIAL: emu.test.credential }),
      // --credential-stdin beats MERCHANT_KIT_CREDENTIAL.
      cli(['--credential-stdin', 'me', '--json'], { env: { ...config.env, ...envOther, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url }, input: `${emu.test.credential}\n` }),
    ]);
    expect(fromProfile).toBe(emu.test.store_id);
    expect(fromEnv).toBe(other.test.store_id);
    expect(fromProfileVariable).toBe(other.test.store_id);
    // Decision (docs/cli.md): MERCHANT_KIT_PROFILE is the bottom layer, under MERCHANT_KIT_BASE_URL/_CREDENTIAL.
    expect(underEnv).toBe(other.test.store_id);
    expect(flagOverEnv).toBe(emu.test.store_id);
    expect(baseUrlFlag).toBe(emu.test.store_id);
    expect(JSON.parse(piped.stdout).store.id).toBe(emu.test.store_id);
  });
});
