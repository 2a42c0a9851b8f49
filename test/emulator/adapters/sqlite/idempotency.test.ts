import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import type { EnvContext } from '../../../../emulator/context.js';
import type { IdempotencyClaims } from '../../../../emulator/store/coordination.js';

// The idempotency keys live on the environment's SQLite connection, beside its tables, but belong to
// no unit of work: a key claimed or finished while another request's transaction is open must not
// join that transaction and go with its rollback.
let emu: TestEmulator;
let env: EnvContext;
let claims: IdempotencyClaims;
beforeAll(async () => {
  emu = await startTestEmulator();
  env = emu.running.emulator.env('test');
  claims = emu.running.emulator.storage.coordination.idempotency;
});
afterAll(() => emu.close());

/** A transaction of the environment that stays open for a few turns of the event loop, then rolls back. */
function rolledBackLater(): Promise<unknown> {
  const done = env.store.tx(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw new Error('rollback');
  });
  return done.then(() => undefined, (error: Error) => expect(error.message).toBe('rollback'));
}

const answer = { status: 201, body: { data: { id: 'cat_1' } }, headers: {} };

describe('idempotency keys beside an open transaction', () => {
  it('keeps an answer finished while another transaction is open, when that one rolls back: the retry is a replay', async () => {
    const key = 'beside-rollback-1';
    const other = rolledBackLater();
    expect(await claims.claim('test', emu.test.integration_id, key, 'fp', env.clock.now())).toEqual({ kind: 'fresh' });
    await claims.finish('test', emu.test.integration_id, key, answer);
    await other;
    expect(await claims.claim('test', emu.test.integration_id, key, 'fp', env.clock.now())).toEqual({ kind: 'replay', response: answer });
  });

  it('keeps a claim made while another transaction is open, when that one rolls back: a second request with the key is in progress', async () => {
    const key = 'beside-rollback-2';
    const other = rolledBackLater();
    expect(await claims.claim('test', emu.test.integration_id, key, 'fp', env.clock.now())).toEqual({ kind: 'fresh' });
    await other;
    expect(await claims.claim('test', emu.test.integration_id, key, 'fp', env.clock.now())).toEqual({ kind: 'in_progress' });
    await claims.release('test', emu.test.integration_id, key);
  });
});
