// A webhook receiver in the benchmark's process: answers 200 at once to a delivery whose signature
// verifies (the package's own `verify`, as an integrator's receiver would), 400 otherwise, and
// counts per target (`/hook/<tag>`, one signing secret each): deliveries, distinct events,
// duplicates, bad signatures, and the latency of each `order.created` from the moment the bench sent
// the simulated order (its POST /_emulator/orders) to the delivery's arrival.
import http from 'node:http';

export class Deliveries {
  constructor() {
    this.secret = null;
    this.total = 0;
    this.events = new Set();
    this.duplicates = 0;
    this.badSignatures = 0;
    this.windowCount = 0;
    this.recording = false;
    this.latencies = [];
    this.sentAt = new Map(); // order id → performance.now() of its simulate request, while awaited
    this.arrivedAt = new Map(); // order id → arrival, for deliveries that beat the simulate response
  }

  /** The simulate request for `orderId` was sent at `at`; `measured` when inside the measured window. */
  sent(orderId, at, measured) {
    const arrived = this.arrivedAt.get(orderId);
    if (arrived === undefined) return void this.sentAt.set(orderId, { at, measured });
    this.arrivedAt.delete(orderId);
    if (measured) this.latencies.push(arrived - at);
  }

  arrived(type, eventId, body, now) {
    this.total++;
    if (this.recording) this.windowCount++;
    if (this.events.has(eventId)) this.duplicates++;
    else this.events.add(eventId);
    if (type !== 'order.created') return;
    const orderId = orderIdOf(body);
    if (!orderId) return;
    const sent = this.sentAt.get(orderId);
    if (sent === undefined) return void this.arrivedAt.set(orderId, now);
    this.sentAt.delete(orderId);
    if (sent.measured) this.latencies.push(now - sent.at);
  }

  /** Orders simulated whose `order.created` has not arrived yet. */
  get awaited() {
    return this.sentAt.size;
  }
}

function orderIdOf(body) {
  try {
    return JSON.parse(body).data?.order?.id ?? null;
  } catch {
    return null;
  }
}

/** Listens on 127.0.0.1 (any port); `receiver.target(tag)` gives the `Deliveries` of `/hook/<tag>`. */
export async function startReceiver({ verify }) {
  const targets = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      const target = targets.get(req.url?.slice('/hook/'.length));
      if (req.method !== 'POST' || !target) return res.writeHead(404).end();
      const raw = Buffer.concat(chunks);
      const result = verify({
        signature: req.headers['x-service-signature'],
        timestamp: req.headers['x-service-timestamp'],
        rawBody: raw,
        secrets: target.secret ?? '',
      });
      if (!result.ok) {
        target.badSignatures++;
        return res.writeHead(400).end(result.reason);
      }
      res.writeHead(200).end();
      const type = String(req.headers['x-service-event-type']);
      target.arrived(type, String(req.headers['x-service-event-id']), type === 'order.created' ? raw.toString('utf8') : null, now);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const base = `http://127.0.0.1:${server.address().port}/hook`;
  return {
    target(tag) {
      if (!targets.has(tag)) targets.set(tag, new Deliveries());
      return { url: `${base}/${tag}`, deliveries: targets.get(tag) };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
