import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDotSegments } from '../../../emulator/http/dot-segments.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { seedMenu } from '../../helpers/orders.js';

// issue 14, "Also found": a raw `.` or `..` path segment (or `%2E%2E`) was taken as a catalog code
// (PUT → 201). URL parsers remove such segments before sending, so the emulator removes them too
// (docs/catalog.md, Decisions): every client, normalising or not, gets the same answer.

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
  await seedMenu(emu);
});
afterAll(() => emu?.close());

/** One request written byte for byte on a socket: no client library normalises the path first. */
function rawSocket(target: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const { hostname: host, port } = new URL(emu.url);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const head = [
    `${method} ${target} HTTP/1.1`,
    `Host: ${host}:${port}`,
    `Authorization: Bearer ${emu.test.credential}`,
    'Connection: close',
    ...(payload ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`] : []),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), host.replace(/^\[|\]$/g, ''));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const [status, rest] = [Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text.slice(text.indexOf('\r\n\r\n') + 4)];
      let parsed: unknown = rest;
      try {
        parsed = JSON.parse(rest);
      } catch {
        /* a chunked or empty body stays text */
      }
      resolve({ status, body: parsed });
    });
    socket.write(`${head}\r\n\r\n${payload}`);
  });
}

const DOTS = ['.', '..', '%2E', '%2e', '%2E%2E', '%2e%2e', '.%2E', '%2e.', '%2E%2e'];
const category = { name: 'Puntos' };
const product = { name: 'Punto', category_external_id: 'CAT-DRINK', price: '1000' };

const WRITES: [string, string, unknown][] = [
  ['PUT', '/catalog/categories/', category],
  ['DELETE', '/catalog/categories/', undefined],
  ['PUT', '/catalog/products/', product],
  ['PATCH', '/catalog/products/', { price: '2000' }],
  ['DELETE', '/catalog/products/', undefined],
  ['PATCH', '/catalog/options/', { available: false }],
];

describe('a dot segment is never a catalog code (docs/catalog.md, Decisions)', () => {
  it.each(WRITES.flatMap(([method, prefix, body]) => DOTS.map((dots) => [method, prefix + dots, body] as const)))(
    'refuses %s /sandbox/v1%s sent raw on a socket as the path without the dot segment',
    async (method, path, body) => {
      const res = await rawSocket(`/sandbox/v1${path}`, method, body);
      // `..` leaves `/catalog/` (no such route: 404); `.` leaves `/catalog/products/`, an empty code (422).
      const double = /(?:\.|%2e){2}$/i.test(path);
      expect({ status: res.status, code: res.body.error.code }).toEqual(double ? { status: 404, code: 'not_found' } : { status: 422, code: 'validation_failed' });
      if (!double) expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'external_id' })]);
    },
  );

  it('stores no category or product coded "." or ".." however the segment was written', async () => {
    for (const dots of DOTS) {
      await rawSocket(`/sandbox/v1/catalog/categories/${dots}`, 'PUT', category);
      await rawSocket(`/sandbox/v1/catalog/products/${dots}`, 'PUT', product);
    }
    const categories = (await emu.api('GET', '/catalog/categories?limit=200')).body.data.map((c: { external_id: string }) => c.external_id);
    const products = (await emu.api('GET', '/catalog/products?limit=200')).body.data.map((p: { external_id: string }) => p.external_id);
    expect([...categories, ...products].filter((code) => code === '.' || code === '..')).toEqual([]);
  });

  it('gives a raw client the answer fetch gets, for writes and reads alike', async () => {
    const paths = ['/catalog/products/..', '/catalog/products/%2E', '/catalog/categories/.%2e', '/catalog/../me', '/orders/%2e%2E/../me', '/catalog/./categories'];
    for (const path of paths) {
      for (const method of ['GET', 'PUT']) {
        const body = method === 'PUT' ? category : undefined;
        const raw = await rawSocket(`/sandbox/v1${path}`, method, body);
        const viaFetch = await emu.api(method, path, body === undefined ? {} : { body });
        expect({ path, method, status: raw.status, code: raw.body?.error?.code }).toEqual({ path, method, status: viaFetch.status, code: viaFetch.body?.error?.code });
      }
    }
  });

  it('still takes codes that merely contain dots: "...", ".a", "a..b"', async () => {
    for (const code of ['...', '.a', 'a..b']) {
      const res = await rawSocket(`/sandbox/v1/catalog/categories/${code}`, 'PUT', category);
      expect(res.status).toBe(201);
    }
  });

  it('reaches the codes "." and ".." through the batch, which carries them in the body', async () => {
    const res = await emu.api('POST', '/catalog/batch', {
      idempotencyKey: 'dots-batch-1',
      body: { operations: [{ op: 'upsert_category', external_id: '..', data: category }, { op: 'upsert_category', external_id: '.', data: category }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.results.map((r: { result: string }) => r.result)).toEqual(['created', 'created']);
  });

  it.each([
    ['/v1/catalog/products/..', '/v1/catalog/'],
    ['/v1/catalog/products/.', '/v1/catalog/products/'],
    ['/v1/catalog/products/%2E%2e?x=1', '/v1/catalog/?x=1'],
    ['/v1/catalog/./products/.%2E/me', '/v1/catalog/me'],
    ['/../../v1/me', '/v1/me'],
    ['/v1/a/.a/.', '/v1/a/.a/'],
    ['/v1/a/.../..', '/v1/a/'],
    ['/v1/catalog/products/a..b', '/v1/catalog/products/a..b'],
    ['/v1/me?path=/../x', '/v1/me?path=/../x'],
  ])('removes the dot segments of %s as the URL Standard does: %s', (target, expected) => {
    expect(removeDotSegments(target)).toBe(expected);
  });

  it('agrees with the URL parser of fetch on paths of plain and dot segments', () => {
    // Node 20's parser keeps `.` after a segment such as `.a` (`/a/.a/.`), against the URL Standard,
    // so the segments drawn here start with a dot only when they are dot segments.
    const segment = fc.constantFrom('a', 'b', '', '.', '..', '%2e', '%2E', '.%2e', '%2E.', '%2e%2E');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = `/${segments.join('/')}`;
        expect(removeDotSegments(path)).toBe(new URL(`http://h${path}`).pathname);
      }),
      { numRuns: 500 },
    );
  });
});
