import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { apiEnv, feedIds, jsonLines, scratchDir, waitForJsonLines, waitUntil, stopAll } from '../helpers/feed.js';
import { seedMenu, simulate } from '../helpers/orders.js';

let emu: TestEmulator;
let scratch: ReturnType<typeof scratchDir>;
const running: CliProcess[] = [];

// One emulator for the file, reset before each test (its credentials stay valid; limits are off, so
// no rate window carries over): a start per test cost more than the test's own calls.
beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu?.close());
beforeEach(async () => {
  expect((await emu.control('POST', '/reset')).status).toBe(200);
  scratch = scratchDir();
  await seedMenu(emu);
  await simulate(emu);
});
afterEach(async () => {
  await stopAll(running);
  scratch.cleanup();
});

function tail(args: string[], extra: NodeJS.ProcessEnv = {}): CliProcess {
  const cli = runCli(['feed', 'tail', ...args], apiEnv(emu, scratch.dir, extra));
  running.push(cli);
  return cli;
}

describe('merchant-kit feed tail under faults', () => {
  it('rides out 503s on GET /events (the client retries) and prints every event once', async () => {
    const ids = await feedIds(emu);
    // Retry-After: 0 and the test-only short backoff: the retries are the subject, not their waits
    // (the client's 1 s and 2 s, or the emulator's default Retry-After of 1 s, each time).
    const fault = await emu.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/events', status: 503, retry_after: 0, times: 2 });
    expect(fault.status).toBe(201);
    const cli = tail(['--json', '--once', '--verbose'], { MERCHANT_KIT_RETRY_BASE_MS: '5' });
    expect((await cli.exited).code).toBe(0);
    expect(jsonLines(cli).map((e) => e.id)).toEqual(ids);
    // Each 503 was retried (--verbose prints every retry).
    expect(cli.stderr().match(/^retrying: GET \/events\S* failed \(503 maintenance\)/gm)).toHaveLength(2);
  });

  it('stops with exit 1 and one line when the cursor file becomes unwritable, and the unsaved event is read again after', async () => {
    const dir = join(scratch.dir, 'state');
    const file = join(dir, 'feed.cursor');
    const first = tail(['--json', '--interval', '0.2', '--cursor-file', file]);
    const before = await waitForJsonLines(first, (await feedIds(emu)).length);
    await waitUntil(() => JSON.parse(readFileSync(file, 'utf8')).cursor !== null, () => 'first save');
    expect(before.length).toBeGreaterThan(0);
    const lastSaved = readFileSync(file, 'utf8');
    // The folder turns into a file: neither the temporary file nor the rename can be made.
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'not a folder');
    const late = await simulate(emu);
    expect((await first.exited).code).toBe(1);
    const errors = first.stderr().trim().split('\n');
    expect(errors).toHaveLength(1);
    // --json: the error is one JSON object (issue 14).
    expect(JSON.parse(errors[0]).error.message).toMatch(/^Cannot write the cursor file .*feed\.cursor \((ENOTDIR|EEXIST)\)/);
    // The folder back with the last state saved: exactly the event after it is read again.
    rmSync(dir);
    mkdirSync(dir);
    writeFileSync(file, lastSaved);
    const again = tail(['--json', '--once', '--cursor-file', file]);
    expect((await again.exited).code).toBe(0);
    expect(jsonLines(again).map((e) => e.data.order.id)).toEqual([late.id]);
  });

  it('exits 1 with one line saying to delete the file when the feed refuses the saved cursor (emulator reset)', async () => {
    const file = join(scratch.dir, 'feed.cursor');
    const first = tail(['--once', '--cursor-file', file]);
    expect((await first.exited).code).toBe(0);
    await emu.control('POST', '/reset');
    const cli = tail(['--once', '--cursor-file', file]);
    expect((await cli.exited).code).toBe(1);
    const errors = cli.stderr().trim().split('\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/not valid for this feed \(400 invalid_cursor, request_id req_\w+\).*Delete the file/);
  });
});
