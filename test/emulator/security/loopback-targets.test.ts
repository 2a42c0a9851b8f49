import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartEmulatorOptions } from '../../../emulator/server.js';
import { OutboundGuard } from '../../../emulator/net/outbound.js';
import { outboundRefusal } from '../../../emulator/net/address-policy.js';
import { readyCalls } from '../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../helpers/postgres.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';

// DESIGN, Storage and the team sandbox: a shared sandbox (bound beyond loopback, or started with
// --admin-token or --database-url) refuses webhook and image URLs on loopback and the host's own
// addresses like private ones, unless the operator allows them (--allow-loopback-targets). Issue 24
// (medium 2): an integrator's credential made the sandbox host a loopback port scanner (a delivery's
// status or `connection_refused` in GET /webhook/deliveries, the image's error). The local default
// (a developer's own emulator on loopback) still delivers to local receivers.

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const ADMIN = 'admin-token-del-escaner-de-puertos';

let rx: Receiver;
let images: Server;
let imageHits = 0;
let imageBase: string;
const folders: string[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  images = createServer((_req, res) => {
    imageHits++;
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rx.close();
  images.closeAllConnections();
  await new Promise((r) => images.close(r));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  for (const db of databases) await db.drop();
});

/** A sandbox's storage kept across a restart: a data folder, or a PostgreSQL database. */
type Storage = { name: string; options(): Promise<StartEmulatorOptions> };

const STORAGES: Storage[] = [
  {
    name: 'SQLite with --admin-token',
    async options() {
      const dir = mkdtempSync(join(tmpdir(), 'mk-loopback-'));
      folders.push(dir);
      return { data: dir, adminToken: ADMIN };
    },
  },
  ...(PG_URL
    ? [{
        name: 'PostgreSQL (--database-url, no admin token)',
        async options() {
          const db = await createTestDatabase();
          databases.push(db);
          return { databaseUrl: db.url };
        },
      }]
    : []),
];

async function start(options: StartEmulatorOptions) {
  const running = await startEmulator({ port: 0, clock: 'manual', ...options });
  const calls = readyCalls(running);
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${running.admin_url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(options.adminToken ? { authorization: `Bearer ${options.adminToken}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
  return { running, ...calls, control };
}

const menu = async (emu: Awaited<ReturnType<typeof start>>, image?: string) => {
  await emu.api('PUT', '/catalog/categories/CAT-1', { body: { name: 'Bebidas' } });
  return emu.api('PUT', `/catalog/products/P-${Date.now()}`, { body: { name: 'Agua', category_external_id: 'CAT-1', price: '5000', ...(image ? { image_url: image } : {}) } });
};

describe.each(STORAGES)('a shared sandbox ($name)', (storage) => {
  it.each(['http://127.0.0.1', 'http://localhost', 'http://[::1]', 'http://127.1.2.3', 'https://api.localhost', 'https://127.0.0.1'])('refuses a webhook to %s with 422 not_public, on the API and the control API', async (origin) => {
    const emu = await start(await storage.options());
    try {
      const url = `${origin}:${new URL(rx.url).port}/hook`;
      const api = await emu.api('PUT', '/webhook', { body: { url, events: ['*'] } });
      expect(api.status).toBe(422);
      expect(api.body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'not_public' })]);
      const panel = await emu.control('PUT', `/integrations/${emu.test.integration_id}/webhook`, { url });
      expect(panel.status).toBe(422);
      expect(panel.body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'not_public' })]);
    } finally {
      await emu.running.close();
    }
  });

  it('never downloads an image from a loopback address: the image is rejected, the server never asked', async () => {
    const emu = await start(await storage.options());
    try {
      const before = imageHits;
      const made = await menu(emu, `${imageBase}/ok.png`);
      expect(made.status).toBe(201);
      await emu.control('POST', '/images/drain');
      const product = (await emu.api('GET', `/catalog/products?limit=200`)).body.data.find((p: { id: string }) => p.id === made.body.data.id);
      expect(product.image.status).toBe('rejected');
      expect(imageHits).toBe(before);
    } finally {
      await emu.running.close();
    }
  });

  it('never delivers to a loopback receiver saved before (a restart without --allow-loopback-targets): the delivery fails as for a closed port', async () => {
    const options = await storage.options();
    const allowed = await start({ ...options, allowLoopbackTargets: true });
    expect((await allowed.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } })).status).toBe(201);
    await allowed.running.close();
    const emu = await start(options);
    try {
      const before = rx.received.length;
      await menu(emu);
      expect((await emu.control('POST', '/orders', { store_id: emu.test.store_id, scenario: 'pickup_invoice' })).status).toBe(201);
      const drained = await emu.control('POST', '/webhooks/drain');
      expect(drained.body.data.attempted).toBeGreaterThan(0);
      expect(drained.body.data).toMatchObject({ succeeded: 0, failed: drained.body.data.attempted });
      for (const delivery of (await emu.api('GET', '/webhook/deliveries')).body.data) {
        expect(delivery.attempts).toEqual([expect.objectContaining({ succeeded: false, response_status: null, error: 'connection_refused' })]);
      }
      expect(rx.received.length).toBe(before);
    } finally {
      await emu.running.close();
    }
  });

  it('delivers and downloads on loopback with --allow-loopback-targets', async () => {
    const emu = await start({ ...(await storage.options()), allowLoopbackTargets: true });
    try {
      const before = rx.received.length;
      expect((await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } })).status).toBe(201);
      const made = await menu(emu, `${imageBase}/ok.png?allowed`);
      await emu.control('POST', '/images/drain');
      const product = (await emu.api('GET', `/catalog/products?limit=200`)).body.data.find((p: { id: string }) => p.id === made.body.data.id);
      expect(product.image.status).toBe('ready');
      await emu.control('POST', '/orders', { store_id: emu.test.store_id, scenario: 'pickup_invoice' });
      await emu.control('POST', '/webhooks/drain');
      expect(rx.received.length).toBeGreaterThan(before);
    } finally {
      await emu.running.close();
    }
  });
});

describe('a local emulator (loopback, no admin token, SQLite)', () => {
  it('delivers to a loopback receiver as before', async () => {
    const emu = await start({ memory: true });
    try {
      const before = rx.received.length;
      expect((await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } })).status).toBe(201);
      await menu(emu);
      await emu.control('POST', '/orders', { store_id: emu.test.store_id, scenario: 'pickup_invoice' });
      await emu.control('POST', '/webhooks/drain');
      expect(rx.received.length).toBeGreaterThan(before);
    } finally {
      await emu.running.close();
    }
  });
});

describe('the outbound policy of a shared sandbox', () => {
  const self = { host: '0.0.0.0', port: 4010, localAddresses: new Set(['8.8.4.4', '127.0.0.1']) };

  it.each(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '8.8.4.4'])('refuses %s (loopback, or an address of this host) on any port', (address) => {
    expect(outboundRefusal(address, 8080, self, false)).toBe('not_public');
    expect(outboundRefusal(address, 8080, self, true)).toBeNull();
  });

  it('still lets public addresses through', () => {
    expect(outboundRefusal('8.8.8.8', 443, self, false)).toBeNull();
  });

  it('refuses a name that resolves to loopback when the socket connects', async () => {
    const guard = new OutboundGuard({ loopback: false });
    guard.listening('127.0.0.1', 4010);
    const error = await new Promise<Error | null>((resolve) => guard.lookupFor(80)('localhost', {}, (e) => resolve(e)));
    expect(error).toMatchObject({ code: 'ERR_OUTBOUND_REFUSED' });
    expect(guard.refusalOf('127.0.0.1', 80)).toMatchObject({ reason: 'not_public' });
  });
});
