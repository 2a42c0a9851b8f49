import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateCli, cli, tempConfig } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator, request } from '../helpers/emulator.js';

// issue 27, day two: a data folder's banner shows key ids only (the credentials were shown when it was
// made). `emulator credentials issue` gives a new one for a demo store, once, through the control
// API's rotation; stdout holds the credential alone, so it goes straight into a profile.

let emu: TestEmulator;
let removeBuild: () => void = () => undefined;

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
}, 180_000);
afterAll(async () => {
  await emu?.close();
  removeBuild();
});

const issue = (args: string[] = [], env: NodeJS.ProcessEnv = {}) => cli(['--base-url', emu.running.url, 'emulator', 'credentials', 'issue', ...args], { env });
const me = (base: string, credential: string) => request(`${base}/me`, 'GET', { credential });

describe('emulator credentials issue', () => {
  it("prints a new credential of the test demo store alone on stdout; the day-one credential keeps working (72 h)", async () => {
    const r = await issue();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^svk_test_\w+\.svs_test_\w+\n$/);
    const credential = r.stdout.trim();
    const answer = await me(emu.running.sandbox_base_url, credential);
    expect(answer.status).toBe(200);
    expect(answer.body.data.store.id).toBe(emu.test.store_id);
    expect(r.stderr).toMatch(new RegExp(`^New credential ${credential.split('.')[0]} for the test demo store \\(${emu.test.store_id}\\), integration ${emu.test.integration_id}: shown once, above\\. Its other credentials keep working until \\S+ \\(svk_test_\\w+\\)`));
    expect(r.stderr).not.toContain(credential.split('.')[1]);
    expect((await me(emu.running.sandbox_base_url, emu.test.credential)).status).toBe(200);
  });

  it('--environment live --overlap-hours 0 --json: the control API\'s answer; the live store\'s other credentials stop at once', async () => {
    const r = await issue(['--environment', 'live', '--overlap-hours', '0', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const issued = JSON.parse(r.stdout);
    expect(issued).toMatchObject({ integration_id: emu.live.integration_id, overlap_hours: 0, credential: expect.stringMatching(/^svk_live_/) });
    expect((await me(emu.running.live_base_url, issued.credential)).status).toBe(200);
    expect((await me(emu.running.live_base_url, emu.live.credential)).status).toBe(401);
  });

  it('goes straight into a profile: issue | profile add --credential-stdin, nothing on the screen', async () => {
    const config = tempConfig();
    try {
      const issued = await issue();
      const added = await cli(['profile', 'add', 'sandbox', '--base-url', emu.running.sandbox_base_url, '--credential-stdin'], { env: config.env, input: issued.stdout });
      expect(added.code, added.stderr).toBe(0);
      const used = await cli(['--profile', 'sandbox', 'me', '--json'], { env: config.env });
      expect(JSON.parse(used.stdout).store.id).toBe(emu.test.store_id);
    } finally {
      config.cleanup();
    }
  });

  it('--integration names another integration; an unknown one is one line, exit 1', async () => {
    const made = await emu.control('POST', '/stores', { environment: 'test', name: 'Otra' });
    const integration = made.body.data.integration.id;
    const r = await issue(['--integration', integration]);
    expect(r.code, r.stderr).toBe(0);
    expect((await me(emu.running.sandbox_base_url, r.stdout.trim())).body.data.integration.id).toBe(integration);
    const unknown = await issue(['--integration', 'int_01M8ZZZZZZZZZZZZZZZZZZZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: no integration int_01M8ZZZZZZZZZZZZZZZZZZZZZZ in this emulator\n');
  });

  it('--overlap-hours outside 0..72 is a usage error (exit 2)', async () => {
    const r = await issue(['--overlap-hours', '73']);
    expect(r.code).toBe(2);
  });
});
