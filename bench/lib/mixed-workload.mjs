// The mixed workload: C connections, each sending the next request of a fixed, interleaved mix to
// the next process of the sandbox (round-robin, per kind of request so that every kind is spread
// evenly), over the bench's own keep-alive HTTP/1.1 client (bench/lib/http1.mjs: one Origin per
// process, up to C connections each). An order goes through the mix's pipeline:
// simulated (POST /_emulator/orders) → acknowledged → accepted → ready → completed, never two of
// its requests in flight at once (so a 409 is an error of the emulator, not a race of the bench).
import { Origin } from './http1.mjs';
import { CursorAtEnd, ListPageReader } from './list-page.mjs';

/** Requests per 20 of each kind: what `--mix` changes. Simulate : ack : status is 1 : 1 : 3 so the pipeline stays fed. */
export const DEFAULT_MIX = { read: 8, products: 4, feed: 3, simulate: 1, ack: 1, status: 3 };
export const MIX_KINDS = {
  read: 'GET /orders/{id}',
  products: 'GET /catalog/products?limit=50 (next page)',
  feed: 'GET /events?limit=100 (next page)',
  simulate: 'POST /_emulator/orders (a new order: its webhook deliveries follow)',
  ack: 'POST /orders/{id}/ack (an order not yet acknowledged)',
  status: 'POST /orders/{id}/status (accepted → ready → completed)',
};
const NEXT_STATUS = { accepted: 'ready', ready: 'completed', completed: null };

/** `read=8,products=4,…`: kinds left out weigh 0. */
export function parseMix(text) {
  if (!text) return { ...DEFAULT_MIX };
  const mix = Object.fromEntries(Object.keys(MIX_KINDS).map((k) => [k, 0]));
  for (const part of text.split(',')) {
    const [name, weight] = part.split('=').map((s) => s.trim());
    if (!(name in MIX_KINDS)) throw new Error(`--mix: unknown kind '${name}' (kinds: ${Object.keys(MIX_KINDS).join(', ')})`);
    if (!/^\d+$/.test(weight ?? '')) throw new Error(`--mix: the weight of ${name} must be a whole number (${name}=3)`);
    mix[name] = Number(weight);
  }
  if (Object.values(mix).every((w) => w === 0)) throw new Error('--mix: at least one kind must weigh more than 0');
  return mix;
}

/** The mix as a sequence in which each kind is spread evenly (smooth weighted round-robin). */
export function schedule(mix) {
  const kinds = Object.entries(mix).filter(([, w]) => w > 0);
  const total = kinds.reduce((n, [, w]) => n + w, 0);
  const current = new Map(kinds.map(([k]) => [k, 0]));
  const out = [];
  for (let i = 0; i < total; i++) {
    for (const [k, w] of kinds) current.set(k, current.get(k) + w);
    const [best] = [...current.entries()].sort((a, b) => b[1] - a[1])[0];
    current.set(best, current.get(best) - total);
    out.push(best);
  }
  return out;
}

/**
 * One target's state, kept across its rounds: the pools, the orders at each step of the pipeline,
 * the feed and catalog readers' cursors. `adminHeaders` authorize the control API.
 */
export class Target {
  constructor({ label, urls, credential, storeId, orders, adminHeaders = {}, deliveries = null, connections }) {
    this.label = label;
    this.urls = urls;
    this.pools = urls.map((u) => new Origin(u, { connections }));
    this.auth = { authorization: `Bearer ${credential}` };
    this.adminHeaders = adminHeaders;
    this.storeId = storeId;
    this.deliveries = deliveries;
    this.known = [...orders]; // every order, for reads
    this.fresh = [...orders]; // waiting for their ack
    this.staged = []; // acknowledged, with the next status to send
    this.feedReaders = [];
    this.feedHead = null; // the latest feed cursor any reader got
    this.feedEvents = 0; // events read from the feed (counted over a window)
    this.feedPages = 0;
    this.productReaders = [];
    this.spread = new Map(); // kind → round-robin counter over the processes
    this.seq = 0;
    this.reads = 0;
    this.tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  }

  close() {
    return Promise.all(this.pools.map((p) => p.close()));
  }

  pool(kind) {
    const n = this.spread.get(kind) ?? 0;
    this.spread.set(kind, n + 1);
    return this.pools[n % this.pools.length];
  }

  key() {
    return `mixed-${this.tag}-${++this.seq}`;
  }
}

/**
 * One HTTP exchange: `{ status, ok, text, page, code }`. The body is always read to its end, and
 * kept as `read` says: 'text' (decoded, the default), 'none' (dropped chunk by chunk) or a reader
 * class (bench/lib/list-page.mjs) fed chunk by chunk, whose `end()` is `page`; an error's body is
 * decoded for its code. A network failure is status 0 with its code. `pool` dispatches as undici's
 * Pool does (bench/lib/http1.mjs's Origin, or undici's): no body stream and no promise per body.
 */
export function exchange(pool, method, path, headers, body, { read = 'text' } = {}) {
  return new Promise((resolve) => {
    const answer = new Answer(read, resolve);
    try {
      pool.dispatch(
        {
          method,
          path,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        answer,
      );
    } catch (error) {
      answer.onError(error);
    }
  });
}

/** The handler of one request (undici's callbacks: onConnect, onHeaders, onData…, then onComplete or onError). */
class Answer {
  constructor(read, resolve) {
    this.read = read;
    this.resolve = resolve;
    this.status = 0;
    this.chunks = null; // the text's or an error's
    this.reader = null;
    this.unreadable = null;
    this.settled = false;
  }

  onConnect() {}

  onHeaders(status) {
    this.status = status;
    if (status >= 300 || this.read === 'text') this.chunks = [];
    else if (this.read !== 'none') this.reader = new this.read();
    return true;
  }

  onData(chunk) {
    if (this.reader) {
      // A page the reader cannot read is the bench's failure (pageOf), not a network one.
      try {
        this.reader.write(chunk);
      } catch (error) {
        this.unreadable = error;
        this.reader = null;
      }
    } else if (this.chunks) this.chunks.push(chunk);
    return true;
  }

  onComplete() {
    if (this.settled) return;
    this.settled = true;
    const status = this.status;
    const ok = status < 300;
    if (ok && this.reader) {
      try {
        return this.resolve({ status, ok, page: this.reader.end() });
      } catch (error) {
        this.unreadable = error;
      }
    }
    if (ok && this.unreadable) return this.resolve({ status, ok, page: this.unreadable });
    if (ok && !this.chunks) return this.resolve({ status, ok });
    const text = Buffer.concat(this.chunks).toString('utf8');
    if (ok) return this.resolve({ status, ok, text });
    let code = '';
    try {
      code = JSON.parse(text).error?.code ?? '';
    } catch {
      code = 'not_json';
    }
    this.resolve({ status, ok, code });
  }

  onError(error) {
    if (this.settled) return;
    this.settled = true;
    this.resolve({ status: 0, ok: false, code: error.code ?? error.name ?? 'error' });
  }
}

/** The `page` of an answer read by a reader; throws what the reader could not read. */
function pageOf(res) {
  if (res.page instanceof Error) throw res.page;
  return res.page;
}

export const API = '/sandbox/v1';

/** The request of each kind, and what its answer changes in the target's state. `null`: nothing to do (falls back to a read). */
const OPERATIONS = {
  read(t) {
    const id = t.known[t.reads++ % t.known.length];
    return { method: 'GET', path: `${API}/orders/${id}`, headers: t.auth, read: 'none' };
  },
  products(t) {
    const reader = t.productReaders.pop() ?? { cursor: null };
    return {
      method: 'GET',
      path: `${API}/catalog/products?limit=50${reader.cursor ? `&cursor=${encodeURIComponent(reader.cursor)}` : ''}`,
      headers: t.auth,
      read: CursorAtEnd,
      done(res) {
        // The last page sends the reader back to the first, as a client polling its catalog does.
        if (res.ok) reader.cursor = pageOf(res).nextCursor;
        t.productReaders.push(reader);
      },
    };
  },
  feed(t) {
    // A new reader (more feed requests in flight than before) starts where the others have got to,
    // as a client resumes from its stored cursor; only the first starts at the feed's beginning.
    const reader = t.feedReaders.pop() ?? { after: t.feedHead };
    return {
      method: 'GET',
      path: `${API}/events?limit=100${reader.after ? `&after=${encodeURIComponent(reader.after)}` : ''}`,
      headers: t.auth,
      read: ListPageReader,
      done(res) {
        if (res.ok) {
          const page = pageOf(res);
          reader.after = page.nextCursor ?? reader.after;
          t.feedHead = reader.after;
          t.feedEvents += page.items;
          t.feedPages++;
        }
        t.feedReaders.push(reader);
      },
    };
  },
  simulate(t, measured) {
    const sentAt = performance.now();
    return {
      method: 'POST',
      path: '/_emulator/orders',
      headers: t.adminHeaders,
      body: { store_id: t.storeId },
      done(res) {
        if (!res.ok) return;
        const { id } = JSON.parse(res.text).data;
        t.known.push(id);
        t.fresh.push(id);
        t.deliveries?.sent(id, sentAt, measured);
      },
    };
  },
  ack(t) {
    const id = t.fresh.shift();
    if (id === undefined) return null;
    const n = ++t.seq;
    return {
      method: 'POST',
      path: `${API}/orders/${id}/ack`,
      headers: { ...t.auth, 'idempotency-key': t.key() },
      body: { external_id: `ERP-${t.tag}-${n}`, external_number: String(n) },
      read: 'none',
      done(res) {
        if (res.ok) t.staged.push({ id, next: 'accepted' });
      },
    };
  },
  status(t) {
    const order = t.staged.shift();
    if (order === undefined) return null;
    return {
      method: 'POST',
      path: `${API}/orders/${order.id}/status`,
      headers: { ...t.auth, 'idempotency-key': t.key() },
      body: order.next === 'accepted' ? { status: 'accepted', estimated_minutes: 30 } : { status: order.next },
      read: 'none',
      done(res) {
        const next = NEXT_STATUS[order.next];
        if (res.ok && next) t.staged.push({ id: order.id, next });
      },
    };
  },
};

/** Acknowledges `count` of the target's fresh orders before the load, so that status changes have orders from the start. */
export async function prime(t, count) {
  let left = Math.min(count, t.fresh.length);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) {
        const op = OPERATIONS.ack(t);
        const res = await exchange(t.pool('ack'), op.method, op.path, op.headers, op.body, op);
        if (!res.ok) throw new Error(`priming: POST ack answered ${res.status} ${res.code}`);
        op.done(res);
      }
    }),
  );
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : null);
const round2 = (x) => (x === null ? null : Math.round(x * 100) / 100);

/**
 * Runs the mix on `t` over `connections` for `warmup` + `duration` seconds and measures the last
 * `duration`: requests answered in the window, their latency (request sent → body read), errors
 * by kind, status and code, and the readings of `onWindow.start()`/`onWindow.end()` (CPU).
 */
export async function runMix(t, { mix, connections, duration, warmup, onWindow, failed = () => false }) {
  const order = schedule(mix);
  const latencies = [];
  const byKind = {};
  const errors = {};
  const fallbacks = {};
  let recording = false;
  let stopped = false;
  let halt;
  const halted = new Promise((resolve) => (halt = resolve));
  // Waits `ms`, or less when the load stopped early (a process under test is gone).
  const wait = (ms) => Promise.race([sleep(ms), halted]);
  let next = 0;
  const deliveries = t.deliveries;

  const worker = async () => {
    while (!stopped) {
      const planned = order[next++ % order.length];
      let kind = planned;
      let op = OPERATIONS[kind](t, recording);
      if (op === null) {
        if (recording) fallbacks[planned] = (fallbacks[planned] ?? 0) + 1;
        kind = 'read';
        op = OPERATIONS.read(t);
      }
      const started = performance.now();
      const res = await exchange(t.pool(kind), op.method, op.path, op.headers, op.body, op);
      const ms = performance.now() - started;
      if (res.status === 0 && failed()) {
        stopped = true;
        halt();
        break;
      }
      try {
        op.done?.(res);
      } catch (error) {
        throw new Error(`${op.method} ${op.path.split('?')[0]} answered a body the bench cannot read (${error.message})`);
      }
      if (!recording) continue;
      latencies.push(ms);
      (byKind[kind] ??= []).push(ms);
      if (!res.ok) {
        const key = `${kind} ${res.status || 'network'} ${res.code}`.trim();
        errors[key] = (errors[key] ?? 0) + 1;
      }
    }
  };

  let failure = null;
  // A worker's error (a body the bench cannot read) stops the load at once and is reported after it.
  const workers = Array.from({ length: connections }, () =>
    worker().catch((error) => {
      failure ??= error;
      stopped = true;
      halt();
    }),
  );
  await wait(warmup * 1000);
  // A reading may be a promise (PostgreSQL's statements): the window starts once it is taken.
  const startReading = await onWindow?.start();
  if (deliveries) {
    deliveries.windowCount = 0;
    deliveries.latencies = [];
    deliveries.recording = true;
  }
  t.feedEvents = 0;
  t.feedPages = 0;
  recording = true;
  const windowStart = performance.now();
  await wait(duration * 1000);
  recording = false;
  const seconds = (performance.now() - windowStart) / 1000;
  if (deliveries) deliveries.recording = false;
  const feed = { events: t.feedEvents, pages: t.feedPages };
  const cpu = await onWindow?.end(startReading);
  stopped = true;
  await Promise.all(workers);
  if (failure) throw failure;

  latencies.sort((a, b) => a - b);
  const kinds = {};
  for (const kind of Object.keys(MIX_KINDS)) {
    const list = byKind[kind];
    if (!list) continue;
    list.sort((a, b) => a - b);
    kinds[kind] = { requests: list.length, p50_ms: round2(percentile(list, 0.5)), p99_ms: round2(percentile(list, 0.99)) };
  }
  const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
  return {
    seconds: round2(seconds),
    requests: latencies.length,
    rps: Math.round(latencies.length / seconds),
    p50_ms: round2(percentile(latencies, 0.5)),
    p99_ms: round2(percentile(latencies, 0.99)),
    max_ms: round2(latencies.at(-1) ?? null),
    errors: errorCount,
    errors_by_kind: errors,
    fallbacks,
    kinds,
    cpu,
    feed_events_per_page: feed.pages ? round2(feed.events / feed.pages) : null,
    feed_events_per_second: Math.round(feed.events / seconds),
    deliveries_window: deliveries ? deliveries.windowCount : null,
    deliveries_per_second: deliveries ? Math.round(deliveries.windowCount / seconds) : null,
  };
}

/**
 * After a run: pages the whole feed from `after` (spread over the processes, limit 200), then waits
 * up to `drainSeconds` for every event listed to be delivered. Reports the feed's events, any listed
 * twice, the events still undelivered, duplicates received and bad signatures, and the latency of
 * the `order.created` deliveries of the orders simulated in the window.
 */
export async function settle(t, { after, drainSeconds }) {
  const listed = [];
  const seen = new Set();
  let twice = 0;
  let cursor = after;
  for (let page = 0; ; page++) {
    const res = await exchange(t.pool('settle'), 'GET', `${API}/events?limit=200${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`, t.auth);
    if (!res.ok) throw new Error(`paging the feed after the run: GET /events answered ${res.status} ${res.code}`);
    const body = JSON.parse(res.text);
    for (const event of body.data) {
      if (seen.has(event.id)) twice++;
      seen.add(event.id);
      listed.push(event.id);
    }
    cursor = body.next_cursor ?? cursor;
    if (!body.has_more) break;
  }
  const d = t.deliveries;
  const deadline = performance.now() + drainSeconds * 1000;
  const missing = () => listed.filter((id) => !d.events.has(id)).length;
  while (missing() > 0 && performance.now() < deadline) await sleep(100);
  const lat = [...d.latencies].sort((a, b) => a - b);
  return {
    feed_events: listed.length,
    feed_listed_twice: twice,
    undelivered: missing(),
    delivered: d.events.size,
    duplicate_deliveries: d.duplicates,
    bad_signatures: d.badSignatures,
    delivery_samples: lat.length,
    delivery_p50_ms: round2(percentile(lat, 0.5)),
    delivery_p99_ms: round2(percentile(lat, 0.99)),
    next_after: cursor,
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
