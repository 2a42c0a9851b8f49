// The state a mixed-workload run starts from, made through the API and the control API only (so it
// works on any build and any backend): a store of its own, its webhook pointed at the bench's
// receiver, a catalog with option groups (one batch) and a stock of simulated orders.
import { call } from './call.mjs';

const CATEGORIES = 10;

/** `count` products over 10 categories, each with a required size group and an optional extras group. */
export function catalogOperations(count) {
  const ops = [];
  for (let c = 1; c <= CATEGORIES; c++) {
    ops.push({ op: 'upsert_category', external_id: `MX-CAT-${c}`, data: { name: `Categoría ${c}`, position: c } });
  }
  for (let p = 1; p <= count; p++) {
    const code = `MX-P-${String(p).padStart(4, '0')}`;
    ops.push({
      op: 'upsert_product',
      external_id: code,
      data: {
        name: `Producto ${p}`,
        category_external_id: `MX-CAT-${((p - 1) % CATEGORIES) + 1}`,
        price: String(10_000 + (p % 50) * 500),
        description: `Descripción del producto ${p}, con sus opciones de tamaño y extras.`,
        sku: `SKU-${p}`,
        position: p,
        option_groups: [
          {
            external_id: `${code}-SIZE`, name: 'Tamaño', min_select: 1, max_select: 1,
            options: ['Chico', 'Mediano', 'Grande'].map((name, i) => ({ external_id: `${code}-SIZE-${i + 1}`, name, price: String(i * 3000) })),
          },
          {
            external_id: `${code}-XTRA`, name: 'Extras', min_select: 0, max_select: 3,
            options: ['Queso', 'Panceta', 'Huevo', 'Cebolla'].map((name, i) => ({ external_id: `${code}-XTRA-${i + 1}`, name, price: String(2000 + i * 500) })),
          },
        ],
      },
    });
  }
  return ops;
}

/**
 * Sets a target up. `urls` are one sandbox's processes (the first makes the store; every one must
 * then accept its credential). The signing secret goes to `deliveries` (the receiver's side of this
 * target). Returns `{ storeId, credential, orders: [ids], timings }`.
 */
export async function setUp({ urls, adminHeaders, webhookUrl, deliveries, products, orders, tag, log }) {
  const timings = {};
  const timed = async (name, work) => {
    const t = performance.now();
    const out = await work();
    timings[name] = Math.round(performance.now() - t);
    return out;
  };
  const admin = (url) => `${url}/_emulator`;
  const api = (url) => `${url}/sandbox/v1`;
  for (const url of urls) await reachable(admin(url), adminHeaders);
  const made = await call(`${admin(urls[0])}/stores`, 'POST', null, { environment: 'test', name: `Mixed bench ${tag}` }, adminHeaders);
  const { credential } = made.data;
  const storeId = made.data.store.id;
  // Several URLs must be one sandbox: a store made on the first is known to every other.
  for (const url of urls.slice(1)) {
    const res = await fetch(`${api(url)}/me`, { headers: { authorization: `Bearer ${credential}` } });
    await res.arrayBuffer();
    if (res.status !== 200) {
      throw new Error(`${url} does not know the store made on ${urls[0]} (GET /me answered ${res.status}): the emulators are not one sandbox (start them with the same --database-url)`);
    }
  }
  const hook = await call(`${api(urls[0])}/webhook`, 'PUT', credential, { url: webhookUrl, events: ['*'] });
  const secret = hook.data.signing_secret;
  // Known to the receiver before the first event is made, so that no delivery is refused.
  deliveries.secret = secret;
  const batch = await timed('catalog_ms', () =>
    call(`${api(urls[0])}/catalog/batch`, 'POST', credential, { operations: catalogOperations(products) }, { 'idempotency-key': `mixed-setup-${tag}` }),
  );
  if (batch.data.summary.failed) {
    const first = batch.data.results.find((r) => r.result === 'error');
    throw new Error(`the catalog batch failed ${batch.data.summary.failed} operations (first: ${first.external_id} ${first.error.code}: ${first.error.message})`);
  }
  const ids = await timed('orders_ms', () => simulate(urls.map(admin), adminHeaders, storeId, orders));
  for (const id of ids) deliveries.sent(id, 0, false); // not measured: their deliveries are only counted
  log?.(`  set up ${tag}: ${products} products in one batch (${timings.catalog_ms} ms), ${orders} orders (${timings.orders_ms} ms)`);
  return { storeId, credential, orders: ids, timings };
}

/** GET /_emulator/health answers 200, or a sentence says why not. */
async function reachable(adminUrl, adminHeaders) {
  let res;
  try {
    res = await fetch(`${adminUrl}/health`, { headers: adminHeaders });
    await res.arrayBuffer();
  } catch (error) {
    throw new Error(`no emulator answers at ${adminUrl.replace(/\/_emulator$/, '')} (${error.cause?.code ?? error.cause?.message ?? error.message})`);
  }
  if (res.status === 401) throw new Error(`${adminUrl} needs an admin token: give --admin-token (or MERCHANT_KIT_ADMIN_TOKEN)`);
  if (res.status !== 200) throw new Error(`${adminUrl}/health answered ${res.status}: is this a merchant-kit emulator?`);
}

/** `count` simulated orders, 8 in flight, spread round-robin over the processes. */
async function simulate(adminUrls, adminHeaders, storeId, count) {
  const ids = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const n = next++;
        const order = await call(`${adminUrls[n % adminUrls.length]}/orders`, 'POST', null, { store_id: storeId }, adminHeaders);
        ids.push(order.data.id);
      }
    }),
  );
  return ids;
}
