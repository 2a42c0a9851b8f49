// A recorded session of every endpoint (API and control), for the golden test: the emulator must
// answer the same bytes before and after a change of its insides (issue 16: the storage port).
// Each step's answer is normalised (ids, credentials, secrets, dates, cursors, ports, durations
// named by order of appearance) so that two runs of the same code compare equal.

import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

export interface RecordedStep {
  step: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers whose value is part of the contract (X-Request-Id only by its shape). */
const KEPT_HEADERS = ['content-type', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'idempotent-replay', 'location'];

class Normaliser {
  private readonly names = new Map<string, string>();
  private readonly counters = new Map<string, number>();

  constructor(
    /** The emulator's time at the session's start (and again after a reset, which restarts the clock). */
    public start: number,
    private readonly base: string,
    private readonly receiverUrl: string,
  ) {}

  private name(kind: string, value: string): string {
    let named = this.names.get(value);
    if (!named) {
      const n = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, n);
      this.names.set(value, (named = `<${kind}#${n}>`));
    }
    return named;
  }

  text(raw: string): string {
    return raw
      .replaceAll(this.receiverUrl, '<receiver>')
      .replaceAll(this.base, '<base>')
      .replace(/\b(svk|svs)_(test|live)_[A-Za-z0-9_-]+/g, (m, kind: string, env: string) => this.name(`${kind}_${env}`, m))
      .replace(/\bwhsec_[A-Za-z0-9_-]+/g, (m) => this.name('whsec', m))
      .replace(/\bmks_[A-Za-z0-9_-]+/g, (m) => this.name('mks', m))
      // Request ids are never named twice: one mark for all, so a step added never renames the rest.
      .replace(/\breq_[0-9A-HJKMNP-TV-Z]{26}\b/g, '<req>')
      .replace(/\b(str|int|cat|prd|ogr|opt|ord|evt|dlv|snc|ent)_[0-9A-HJKMNP-TV-Z]{26}\b/g, (m, kind: string) => this.name(kind, m))
      .replace(/"(next_cursor|cursor|after)":"([A-Za-z0-9_-]+)"/g, (_m, key: string, cursor: string) => `"${key}":"${this.cursor(cursor)}"`)
      .replace(/([?&](?:cursor|after)=)([A-Za-z0-9_-]+)/g, (_m, key: string, cursor: string) => `${key}${this.cursor(cursor)}`)
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, (m) => this.date(m))
      .replace(/"(duration_ms|elapsed_ms|uptime_ms)":\d+/g, '"$1":<ms>')
      .replace(/"pid":\d+/g, '"pid":<pid>');
  }

  private date(text: string): string {
    const ms = Date.parse(text);
    // Fixed dates of the script (a source_updated_at of 2025) stay as written; the emulator's own are relative.
    if (Number.isNaN(ms) || ms < this.start - 1000 || ms > this.start + 40 * 86_400_000) return text;
    const offset = /(Z|[+-]\d{2}:\d{2})$/.exec(text)?.[1];
    return `<t${ms - this.start >= 0 ? '+' : ''}${ms - this.start}ms${offset}>`;
  }

  private cursor(cursor: string): string {
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const inner = decoded
      .replace(/^e1:(\d+):(\d+)$/, (_m, seq: string, at: string) => `e1:${seq}:t+${Number(at) - this.start}`)
      .replace(/\b(str|int|cat|prd|ogr|opt|ord|evt|dlv|ent)_[0-9A-HJKMNP-TV-Z]{26}\b/g, (m, kind: string) => this.name(kind, m));
    return `<cursor ${inner}>`;
  }

  headers(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = headers.get(name);
      if (value !== null) out[name] = this.text(value);
    }
    const requestId = headers.get('x-request-id');
    out['x-request-id'] = requestId && /^req_[0-9A-HJKMNP-TV-Z]{26}$/.test(requestId) ? '<req>' : `<bad: ${requestId}>`;
    return out;
  }
}

interface Call {
  step: string;
  method: string;
  /** Under the sandbox base (`api`), the live base (`live`), the control API (`control`) or the root (`root`). */
  to: 'api' | 'live' | 'control' | 'root';
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  key?: string;
  /** `null`: no credential; a string: that one. */
  credential?: string | null;
}

export interface GoldenRun {
  steps: RecordedStep[];
}

/** Runs the scripted session against a fresh in-process emulator and returns every normalised answer. */
export async function recordSession(): Promise<GoldenRun> {
  // The clock starts on a minute: the rate windows are fixed minutes of the emulator's clock, and a
  // session that started late in one crossed into the next at a clock move (x-ratelimit-remaining 119
  // where 117 was recorded). Only where in its minute it starts is pinned; dates are read relative.
  const emu: TestEmulator = await startTestEmulator({ seed: 42, manualClockStart: Math.floor(Date.now() / 60_000) * 60_000 });
  const receiver: Receiver = await startReceiver();
  const steps: RecordedStep[] = [];
  try {
    const clock = await (await fetch(`${emu.running.admin_url}/clock`)).json() as { data: { now: string } };
    const norm = new Normaliser(Date.parse(clock.data.now), emu.url, receiver.url);
    const bases = { api: emu.running.sandbox_base_url, live: emu.running.live_base_url, control: emu.running.admin_url, root: emu.url };
    const run = async (call: Call): Promise<any> => {
      const headers: Record<string, string> = { ...call.headers };
      const credential = call.credential === undefined ? (call.to === 'live' ? emu.live.credential : call.to === 'api' ? emu.test.credential : null) : call.credential;
      if (credential) headers.authorization = `Bearer ${credential}`;
      if (call.key) headers['idempotency-key'] = call.key;
      let body: string | undefined = call.rawBody;
      if (body === undefined && call.body !== undefined) body = JSON.stringify(call.body);
      if (body !== undefined || (call.to === 'control' && call.method !== 'GET')) headers['content-type'] ??= 'application/json';
      const res = await fetch(`${bases[call.to]}${call.path}`, { method: call.method, headers, body, redirect: 'manual' });
      const text = await res.text();
      // A reset restarts the manual clock at the real time: later dates count from there.
      if (call.path === '/reset' && res.status === 200) norm.start = Date.parse(JSON.parse(text).data.clock.now);
      steps.push({ step: `${call.step} — ${call.method} ${call.to}${norm.text(call.path)}`, status: res.status, headers: norm.headers(res.headers), body: norm.text(text) });
      try {
        return text ? JSON.parse(text) : undefined;
      } catch {
        return text;
      }
    };
    await script(run, emu, receiver, clock.data.now);
    return { steps };
  } finally {
    await receiver.close();
    await emu.close();
  }
}

type Run = (call: Call) => Promise<any>;

async function script(run: Run, emu: TestEmulator, receiver: Receiver, startedAt: string): Promise<void> {
  const api = (step: string, method: string, path: string, extra: Partial<Call> = {}) => run({ step, method, path, to: 'api', ...extra });
  const control = (step: string, method: string, path: string, body?: unknown) => run({ step, method, path, to: 'control', body });

  // Framework answers and authentication
  await run({ step: 'root', method: 'GET', path: '/', to: 'root' });
  await api('unknown route', 'GET', '/nope');
  await api('unknown method', 'PROPFIND', '/me');
  await api('no credential', 'GET', '/me', { credential: null });
  await api('bad credential', 'GET', '/me', { credential: 'svk_test_AAAAAAAAAAAAAAAA.svs_test_BBBBBBBBBBBBBBBBBBBB' });
  await api('live credential on sandbox', 'GET', '/me', { credential: emu.live.credential });
  await api('me', 'GET', '/me');
  await run({ step: 'me live', method: 'GET', path: '/me', to: 'live' });
  await api('store', 'GET', '/store');
  await api('open without products', 'PATCH', '/store', { body: { accepting_orders: true } });
  await api('store unknown field', 'PATCH', '/store', { body: { accepting_orders: true, name: 'x' } });
  await api('malformed json', 'PATCH', '/store', { rawBody: '{"accepting_orders":', headers: { 'content-type': 'application/json' } });
  await api('wrong content type', 'PATCH', '/store', { rawBody: 'accepting_orders=true', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  await api('openapi', 'GET', '/openapi.json', { credential: null });

  // Catalog: single endpoints
  await api('put category', 'PUT', '/catalog/categories/BURGERS', { body: { name: 'Hamburguesas', position: 1 } });
  await api('put category again', 'PUT', '/catalog/categories/BURGERS', { body: { name: 'Hamburguesas', position: 1 } });
  await api('put category stale', 'PUT', '/catalog/categories/DRINKS', { body: { name: 'Bebidas', source_updated_at: '2026-01-01T10:00:00-03:00' } });
  await api('put category older', 'PUT', '/catalog/categories/DRINKS', { body: { name: 'Bebidas viejas', source_updated_at: '2025-01-01T10:00:00-03:00' } });
  await api('put category invalid', 'PUT', '/catalog/categories/BAD', { body: { name: '', position: -1, extra: 1 } });
  await api('put category bad code', 'PUT', '/catalog/categories/bad%20code', { body: { name: 'x' } });
  const product = {
    name: 'Hamburguesa doble', category_external_id: 'BURGERS', price: '35000', description: 'Con queso', sku: 'HB-2',
    option_groups: [
      { external_id: 'G-SIZE', name: 'Tamaño', min_select: 1, max_select: 1, options: [{ external_id: 'O-L', name: 'Grande', price: '5000' }, { external_id: 'O-M', name: 'Mediana' }] },
    ],
  };
  await api('put product', 'PUT', '/catalog/products/HB2', { body: product });
  await api('put product unchanged', 'PUT', '/catalog/products/HB2', { body: product });
  await api('put water', 'PUT', '/catalog/products/WATER', { body: { name: 'Agua', category_external_id: 'DRINKS', price: '5000.50' } });
  await api('put product invalid', 'PUT', '/catalog/products/BAD', {
    body: { name: 'x'.repeat(151), category_external_id: 'NOPE', price: '1.234', option_groups: [{ external_id: 'G', name: 'g', options: [{ external_id: 'O', name: 'o', price: 'x' }] }] },
  });
  await api('put product unknown category', 'PUT', '/catalog/products/P9', { body: { name: 'P', category_external_id: 'NOPE', price: '1' } });
  await api('patch product', 'PATCH', '/catalog/products/HB2', { body: { price: '36000', available: false } });
  await api('patch product empty', 'PATCH', '/catalog/products/HB2', { body: {} });
  await api('patch product missing', 'PATCH', '/catalog/products/NOPE', { body: { price: '1' } });
  await api('patch option', 'PATCH', '/catalog/options/O-L', { body: { price: '6000', available: false } });
  await api('patch product available', 'PATCH', '/catalog/products/HB2', { body: { available: true } });
  await api('list categories', 'GET', '/catalog/categories');
  await api('list products', 'GET', '/catalog/products');
  const page1 = await api('list products page 1', 'GET', '/catalog/products?limit=1');
  await api('list products page 2', 'GET', `/catalog/products?limit=1&cursor=${page1?.next_cursor}`);
  await api('list products filtered', 'GET', '/catalog/products?category_external_id=DRINKS&active=true');
  await api('list products bad cursor', 'GET', '/catalog/products?cursor=zzz');
  await api('list products bad limit', 'GET', '/catalog/products?limit=500');

  // Catalog: batch and snapshots
  await api('batch without key', 'POST', '/catalog/batch', { body: { operations: [] } });
  await api('batch empty', 'POST', '/catalog/batch', { key: 'batch-empty-1', body: { operations: [] } });
  // The same key and body twice: the second answer is the first one replayed.
  const batchBody = {
    operations: [
      { op: 'upsert_category', external_id: 'SIDES', data: { name: 'Acompañamientos' } },
      { op: 'upsert_product', external_id: 'FRIES', data: { name: 'Papas', category_external_id: 'SIDES', price: '12000' } },
      { op: 'patch_product', external_id: 'WATER', data: { price: '5500' } },
      { op: 'patch_option', external_id: 'O-M', data: { available: false } },
      { op: 'explode', external_id: 'X' },
      { op: 'upsert_product', external_id: 'BAD', data: { name: 'x' } },
    ],
  };
  await api('batch', 'POST', '/catalog/batch', { key: 'batch-0001', body: batchBody });
  await api('batch replay', 'POST', '/catalog/batch', { key: 'batch-0001', body: batchBody });
  await api('batch conflict', 'POST', '/catalog/batch', { key: 'batch-0001', body: { operations: [{ op: 'deactivate_product', external_id: 'FRIES' }] } });
  await api('snapshot part 2 first', 'POST', '/catalog/batch', {
    key: 'snap-a-2', body: { full_snapshot: true, snapshot_id: 'SNAP-A', snapshot_part: 2, snapshot_last: true, operations: [{ op: 'deactivate_product', external_id: 'FRIES' }] },
  });
  await api('snapshot part 1', 'POST', '/catalog/batch', {
    key: 'snap-a-1',
    body: { full_snapshot: true, snapshot_id: 'SNAP-A', snapshot_part: 1, snapshot_last: false, operations: [{ op: 'upsert_category', external_id: 'BURGERS', data: { name: 'Hamburguesas', position: 1 } }] },
  });
  await api('snapshot part 2', 'POST', '/catalog/batch', {
    key: 'snap-a-2b',
    body: { full_snapshot: true, snapshot_id: 'SNAP-A', snapshot_part: 2, snapshot_last: true, operations: [{ op: 'upsert_product', external_id: 'HB2', data: product }, { op: 'upsert_category', external_id: 'DRINKS', data: { name: 'Bebidas' } }, { op: 'upsert_product', external_id: 'WATER', data: { name: 'Agua', category_external_id: 'DRINKS', price: '5000.50' } }, { op: 'upsert_category', external_id: 'SIDES', data: { name: 'Acompañamientos' } }, { op: 'upsert_product', external_id: 'FRIES', data: { name: 'Papas', category_external_id: 'SIDES', price: '12000' } }] },
  });
  await api('snapshot closed', 'POST', '/catalog/batch', {
    key: 'snap-a-3', body: { full_snapshot: true, snapshot_id: 'SNAP-A', snapshot_part: 3, snapshot_last: true, operations: [{ op: 'deactivate_product', external_id: 'FRIES' }] },
  });
  await api('batch too large', 'POST', '/catalog/batch', { key: 'batch-big-1', body: { operations: Array.from({ length: 501 }, () => ({ op: 'deactivate_product', external_id: 'X' })) } });
  await api('delete category not empty', 'DELETE', '/catalog/categories/BURGERS');
  await api('delete product', 'DELETE', '/catalog/products/FRIES');
  await api('delete category', 'DELETE', '/catalog/categories/SIDES');
  await api('delete missing', 'DELETE', '/catalog/products/NOPE');
  await api('delete with body', 'DELETE', '/catalog/products/WATER', { body: { x: 1 } });

  // Store
  await api('open store', 'PATCH', '/store', { body: { accepting_orders: true } });
  await api('store after', 'GET', '/store');

  // Webhook (before orders, so that their events are delivered)
  await api('get webhook none', 'GET', '/webhook');
  await api('put webhook bad', 'PUT', '/webhook', { body: { url: 'ftp://x', events: ['nope'] } });
  await api('put webhook', 'PUT', '/webhook', { body: { url: `${receiver.url}`, events: ['*'] } });
  await api('put webhook update', 'PUT', '/webhook', { body: { url: `${receiver.url}`, events: ['order.created', 'order.status_changed', 'order.updated', 'store.updated'] } });
  await api('get webhook', 'GET', '/webhook');
  await api('webhook test', 'POST', '/webhook/test');

  // Orders from the simulator
  const state = await control('state', 'GET', '/state');
  const storeId = state?.data?.environments?.test?.stores?.[0]?.id ?? emu.test.store_id;
  const o1 = await control('simulate delivery', 'POST', '/orders', { store_id: storeId, scenario: 'delivery' });
  const o2 = await control('simulate pickup', 'POST', '/orders', { store_id: storeId, scenario: 'pickup_invoice' });
  const o3 = await control('simulate unmapped', 'POST', '/orders', { store_id: storeId, scenario: 'unmapped_product' });
  await control('simulate items', 'POST', '/orders', { store_id: storeId, scenario: 'delivery', items: [{ product_external_id: 'HB2', quantity: 2, options: [{ option_external_id: 'O-L', quantity: 1 }] }], notes: 'Sin cebolla', payment_method_code: 'cash' });
  await control('simulate bad', 'POST', '/orders', { store_id: storeId, scenario: 'teleport' });
  await control('simulate unknown store', 'POST', '/orders', { store_id: 'str_00000000000000000000000000', scenario: 'delivery' });
  const id1 = o1?.data?.id;
  const id2 = o2?.data?.id;
  const id3 = o3?.data?.id;
  await api('list orders', 'GET', '/orders');
  await api('list orders pending ack', 'GET', '/orders?ack_status=pending&limit=2');
  await api('list orders by status', 'GET', '/orders?status=pending,accepted');
  await api('list orders bad status', 'GET', '/orders?status=lost');
  await api('get order', 'GET', `/orders/${id1}`);
  await api('get order again', 'GET', `/orders/${id1}`);
  await api('get order missing', 'GET', '/orders/ord_00000000000000000000000000');
  await api('ack without key', 'POST', `/orders/${id1}/ack`, { body: { external_id: 'ERP-1' } });
  await api('ack bad key', 'POST', `/orders/${id1}/ack`, { key: 'x', body: { external_id: 'ERP-1' } });
  await api('ack', 'POST', `/orders/${id1}/ack`, { key: 'ack-0001', body: { external_id: 'ERP-1', external_number: '1001' } });
  await api('ack replay', 'POST', `/orders/${id1}/ack`, { key: 'ack-0001', body: { external_id: 'ERP-1', external_number: '1001' } });
  await api('ack same code', 'POST', `/orders/${id1}/ack`, { key: 'ack-0002', body: { external_id: 'ERP-1' } });
  await api('ack conflict', 'POST', `/orders/${id1}/ack`, { key: 'ack-0003', body: { external_id: 'ERP-9' } });
  await api('by external id', 'GET', '/orders/by-external-id/ERP-1');
  await api('by external id missing', 'GET', '/orders/by-external-id/ERP-404');
  await api('import failure', 'POST', `/orders/${id3}/import-failure`, { key: 'fail-0001', body: { code: 'unmapped_product', message: 'Producto sin código', retryable: true } });
  await api('import failure acked', 'POST', `/orders/${id1}/import-failure`, { key: 'fail-0002', body: { code: 'other', message: 'x', retryable: false } });
  await api('import failure invalid', 'POST', `/orders/${id3}/import-failure`, { key: 'fail-0003', body: { code: 'nope', message: '' } });
  await api('accept', 'POST', `/orders/${id1}/status`, { key: 'status-0001', body: { status: 'accepted', estimated_minutes: 30 } });
  await api('accept again', 'POST', `/orders/${id1}/status`, { key: 'status-0002', body: { status: 'accepted' } });
  await api('backwards', 'POST', `/orders/${id1}/status`, { key: 'status-0003', body: { status: 'pending' } });
  await api('skip to ready', 'POST', `/orders/${id1}/status`, { key: 'status-0004', body: { status: 'ready' } });
  await api('out for delivery', 'POST', `/orders/${id1}/status`, { key: 'status-0005', body: { status: 'out_for_delivery' } });
  await api('pickup out for delivery', 'POST', `/orders/${id2}/status`, { key: 'status-0006', body: { status: 'accepted' } });
  await api('pickup out for delivery refused', 'POST', `/orders/${id2}/status`, { key: 'status-0007', body: { status: 'out_for_delivery' } });
  await api('reject without reason', 'POST', `/orders/${id3}/status`, { key: 'status-0008', body: { status: 'rejected' } });
  await api('reject', 'POST', `/orders/${id3}/status`, { key: 'status-0009', body: { status: 'rejected', reason: 'Sin stock' } });
  await api('minutes on ready', 'POST', `/orders/${id2}/status`, { key: 'status-0010', body: { status: 'ready', estimated_minutes: 5 } });
  await api('future occurred_at', 'POST', `/orders/${id2}/status`, { key: 'status-0011', body: { status: 'ready', occurred_at: '2099-01-01T00:00:00-03:00' } });
  await control('customer cancels', 'POST', `/orders/${id2}/status`, { status: 'cancelled', reason: 'Me arrepentí', by: 'customer' });
  await control('panel cancels', 'POST', `/orders/${id2}/status`, { status: 'cancelled', reason: 'Cerramos temprano', by: 'store_user' });
  await control('mark paid', 'PATCH', `/orders/${id1}`, { payment_status: 'paid' });
  await api('complete', 'POST', `/orders/${id1}/status`, { key: 'status-0012', body: { status: 'completed', occurred_at: startedAt } });
  await api('get order final', 'GET', `/orders/${id1}`);

  // Feed
  const feed1 = await api('feed page 1', 'GET', '/events?limit=3');
  await api('feed page 2', 'GET', `/events?limit=3&after=${feed1?.next_cursor}`);
  await api('feed types', 'GET', '/events?types=order.status_changed');
  await api('feed bad cursor', 'GET', '/events?after=abc');
  await api('feed bad limit', 'GET', '/events?limit=0');
  await api('feed all', 'GET', '/events?limit=200');

  // Webhook deliveries
  await control('drain', 'POST', '/webhooks/drain');
  const deliveries = await api('deliveries', 'GET', '/webhook/deliveries?limit=5');
  await api('deliveries by status', 'GET', '/webhook/deliveries?status=succeeded&limit=2');
  await api('deliveries bad status', 'GET', '/webhook/deliveries?status=lost');
  const dlv = deliveries?.data?.[0]?.id;
  await api('retry delivery', 'POST', `/webhook/deliveries/${dlv}/retry`);
  await api('retry missing', 'POST', '/webhook/deliveries/dlv_00000000000000000000000000/retry');
  receiver.behave = () => ({ status: 500 });
  await control('simulate for failure', 'POST', '/orders', { store_id: storeId, scenario: 'delivery' });
  await control('drain failing', 'POST', '/webhooks/drain');
  await control('advance 61 s', 'POST', '/clock/advance', { seconds: 61 });
  await control('drain retry', 'POST', '/webhooks/drain');
  await api('deliveries failing', 'GET', '/webhook/deliveries?status=pending&limit=1');
  receiver.behave = () => ({ status: 200 });
  await api('rotate secret', 'POST', '/webhook/rotate-secret');

  // Entregas
  const acceptedDelivery = await control('simulate for entrega', 'POST', '/orders', { store_id: storeId, scenario: 'delivery', payment_method_code: 'cash' });
  const oid = acceptedDelivery?.data?.id;
  await api('accept for entrega', 'POST', `/orders/${oid}/status`, { key: 'status-ent-1', body: { status: 'accepted', estimated_minutes: 20 } });
  const ent = await api('create entrega', 'POST', '/entregas', { key: 'ent-key-0001', body: { request_key: 'ENV-0001', order_id: oid } });
  await api('create entrega again', 'POST', '/entregas', { key: 'ent-key-0002', body: { request_key: 'ENV-0001', order_id: oid } });
  await api('create manual entrega', 'POST', '/entregas', {
    key: 'ent-key-0003',
    body: { request_key: 'ENV-0002', customer: { name: 'Ana', phone: '+595981000111' }, address: { line: 'Av. X 1', reference: 'Portón' }, payment_method: 'cash', customer_total: 85000, customer_fee: 10000, courier_fee: 12000, notes: 'Llamar' },
  });
  await api('create entrega invalid', 'POST', '/entregas', { key: 'ent-key-0004', body: { request_key: 'ENV-0003', payment_method: 'bank_transfer' } });
  const entId = ent?.data?.id;
  await api('get entrega', 'GET', `/entregas/${entId}`);
  await api('entrega raise fee', 'POST', `/entregas/${entId}/raise_fee`, { key: 'ent-act-1', body: { amount: 15000 } });
  await api('entrega pickup', 'POST', `/entregas/${entId}/pickup`, { key: 'ent-act-2', body: { settlement_confirmed: true } });
  await api('entrega bad action', 'POST', `/entregas/${entId}/teleport`, { key: 'ent-act-3', body: {} });
  await api('entrega missing', 'GET', '/entregas/ent_00000000000000000000000000');

  // Control API: stores, integrations, credentials, clock, faults, chaos, homologation, panel, export
  await control('health', 'GET', '/health');
  await control('clock', 'GET', '/clock');
  const made = await control('create store', 'POST', '/stores', { environment: 'test', name: 'Segunda tienda', scopes: ['orders:read'] });
  await control('create store invalid', 'POST', '/stores', { environment: 'mars' });
  const second = made?.data?.credential;
  await api('second store no scope', 'GET', '/catalog/products', { credential: second });
  await api('second store me', 'GET', '/me', { credential: second });
  await control('patch store', 'PATCH', `/stores/${storeId}`, { accepting_orders: false });
  await control('patch store back', 'PATCH', `/stores/${storeId}`, { accepting_orders: true, payment_methods: [{ code: 'cash', name: 'Efectivo' }] });
  await control('patch store invalid', 'PATCH', `/stores/${storeId}`, { suspended: 'yes' });
  const integrationId = made?.data?.integration?.id;
  await control('patch integration', 'PATCH', `/integrations/${integrationId}`, { scopes: ['orders:read', 'catalog:read'], settings: { ack_alert_minutes: 10 } });
  await control('patch integration missing', 'PATCH', '/integrations/int_00000000000000000000000000', { status: 'suspended' });
  // Credentials of one instant are listed by their random key id: a second apart, by time.
  await control('advance 1 s', 'POST', '/clock/advance', { seconds: 1 });
  const rotated = await control('rotate credential', 'POST', `/integrations/${integrationId}/credentials`, { overlap_hours: 1 });
  await api('old credential during overlap', 'GET', '/me', { credential: second });
  await api('new credential', 'GET', '/me', { credential: rotated?.data?.credential });
  const oldKey = String(second ?? '').split('.')[0];
  await control('revoke credential', 'DELETE', `/integrations/${integrationId}/credentials/${oldKey}`);
  await api('revoked credential', 'GET', '/me', { credential: second });
  await control('fault add', 'POST', '/faults', { method: 'GET', path: '/sandbox/v1/store', status: 503, times: 1 });
  await api('faulted', 'GET', '/store');
  await api('after fault', 'GET', '/store');
  await control('fault 429', 'POST', '/faults', { path: '/sandbox/v1/orders/*', status: 429, retry_after: 7 });
  await api('faulted 429', 'GET', `/orders/${id1}`);
  await control('faults clear', 'DELETE', '/faults');
  await control('chaos', 'POST', '/webhooks/chaos', { duplicate_rate: 0, reorder: true, delay_ms: 0 });
  await control('chaos clear', 'DELETE', '/webhooks/chaos');
  await control('homologation missing', 'POST', '/homologation/int_00000000000000000000000000/start');
  await control('advance 1 day', 'POST', '/clock/advance', { seconds: 86_400 });
  await control('clock after', 'GET', '/clock');
  await api('rotated credential a day later', 'GET', '/me', { credential: rotated?.data?.credential });
  await api('store after a day', 'GET', '/store');
  await run({ step: 'panel', method: 'GET', path: '/panel', to: 'control' });
  await control('state', 'GET', '/state');
  await control('reset', 'POST', '/reset');
  await api('me after reset', 'GET', '/me');
  await api('orders after reset', 'GET', '/orders');
  await control('state after reset', 'GET', '/state');
}
