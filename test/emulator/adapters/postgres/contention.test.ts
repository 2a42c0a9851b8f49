import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { admin, createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { key, readAllEvents, seedMenu, simulate } from '../../../helpers/orders.js';

// issue 25: PostgreSQL rolls a transaction back when it deadlocks (40P01) or cannot serialise it
// (40001); nothing of it stays, so the emulator runs it again instead of answering the client 500.
// The failures are the server's own, raised by a trigger with those SQLSTATEs on the rows the request
// writes, as many times as the test says (a sequence counts them: a rolled-back transaction cannot
// count its own failures), so the test knows how often the request was refused before it went through.

const INJECTION = `
  CREATE TABLE public.mk_inject (tbl text PRIMARY KEY, code text NOT NULL, times int NOT NULL);
  CREATE SEQUENCE public.mk_injected;
  CREATE FUNCTION public.mk_inject() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE i public.mk_inject;
  BEGIN
    SELECT * INTO i FROM public.mk_inject WHERE tbl = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
    IF FOUND AND nextval('public.mk_injected') <= i.times THEN
      RAISE EXCEPTION 'injected by the test' USING ERRCODE = i.code;
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER mk_inject BEFORE UPDATE ON merchant_kit_test.orders FOR EACH ROW EXECUTE FUNCTION public.mk_inject();
  CREATE TRIGGER mk_inject BEFORE INSERT OR UPDATE ON merchant_kit_shared.rate_windows FOR EACH ROW EXECUTE FUNCTION public.mk_inject();
`;

describe.skipIf(!PG_URL)('a deadlock or serialization failure on PostgreSQL', () => {
  let emu: TestEmulator;
  let database: TestDatabase;
  const sql = (text: string, values: unknown[] = []) => admin((c) => c.query(text, values), database.url);
  /** The next `times` writes of `table` fail with `code`. */
  const inject = (table: string, code: '40P01' | '40001', times: number) =>
    sql(`DELETE FROM public.mk_inject; INSERT INTO public.mk_inject VALUES ('${table}', '${code}', ${times}); SELECT setval('public.mk_injected', 1, false);`);
  /** How many writes of an injected table reached the trigger since `inject`. */
  const fired = async () => Number((await sql('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM public.mk_injected')).rows[0].n);

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    // The limits on: every admitted request writes its integration's rate window in the admission's
    // statement, a statement of the pool that commits on its own.
    emu = await startTestEmulator({ databaseUrl: database.url, limits: true });
    await seedMenu(emu);
    await sql(INJECTION);
  });
  afterEach(async () => {
    await sql('DELETE FROM public.mk_inject');
  });
  afterAll(async () => {
    await emu?.close();
    await database?.drop();
  });

  it('runs a status change again after two deadlocks: answered 200, one change, one history entry, one event', async () => {
    const order = await simulate(emu);
    await inject('merchant_kit_test.orders', '40P01', 2);
    const idempotencyKey = key();
    const body = { status: 'accepted', estimated_minutes: 15 };
    const res = await emu.api('POST', `/orders/${order.id}/status`, { body, idempotencyKey });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('accepted');
    // Refused twice, then through: the third run wrote the order.
    expect(await fired()).toBe(3);
    const read = await emu.api('GET', `/orders/${order.id}`);
    expect(read.body.data.status_history.map((h: { status: string }) => h.status)).toEqual(['pending', 'accepted']);
    const changes = (await readAllEvents(emu)).filter((e) => e.type === 'order.status_changed' && e.data.order.id === order.id);
    expect(changes).toHaveLength(1);
    // The key holds the answer of the run that committed.
    const again = await emu.api('POST', `/orders/${order.id}/status`, { body, idempotencyKey });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body.data.updated_at).toBe(res.body.data.updated_at);
  });

  it('answers 503 maintenance with Retry-After, not 500, when the failures outlast every run; the request then goes through once', async () => {
    const order = await simulate(emu);
    await inject('merchant_kit_test.orders', '40001', 1000);
    const idempotencyKey = key();
    const body = { external_id: 'ERP-CONTENDED' };
    const res = await emu.api('POST', `/orders/${order.id}/ack`, { body, idempotencyKey });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('maintenance');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await fired()).toBe(5);
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.integration.ack_status).not.toBe('acknowledged');
    // A 5xx is not kept for the key: the client's retry once the database lets it through is applied once.
    await sql('DELETE FROM public.mk_inject');
    const retried = await emu.api('POST', `/orders/${order.id}/ack`, { body, idempotencyKey });
    expect(retried.status).toBe(200);
    expect(retried.body.data.integration).toMatchObject({ ack_status: 'acknowledged', external_id: 'ERP-CONTENDED' });
    const updates = (await readAllEvents(emu)).filter((e) => e.type === 'order.updated' && e.data.order.id === order.id);
    expect(updates).toHaveLength(1);
  });

  it('runs a statement of the pool again (the admission\'s rate window) after a deadlock: a read answers 200', async () => {
    const order = await simulate(emu);
    const before = Number((await emu.api('GET', '/me')).headers.get('x-ratelimit-remaining'));
    await inject('merchant_kit_shared.rate_windows', '40P01', 2);
    const read = await emu.api('GET', `/orders/${order.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(order.id);
    // Refused twice, then through (the admission may write more than one window row in its run).
    expect(await fired()).toBeGreaterThanOrEqual(3);
    // Counted once in the window: the rolled-back runs left nothing.
    expect(Number(read.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
  });

  it('answers a read 503 maintenance, not 500, when its statement is refused on every run', async () => {
    const order = await simulate(emu);
    await inject('merchant_kit_shared.rate_windows', '40001', 1000);
    const read = await emu.api('GET', `/orders/${order.id}`);
    expect(read.status).toBe(503);
    expect(read.body.error.code).toBe('maintenance');
    expect(await fired()).toBe(5);
    await sql('DELETE FROM public.mk_inject');
    expect((await emu.api('GET', `/orders/${order.id}`)).status).toBe(200);
  });
});
