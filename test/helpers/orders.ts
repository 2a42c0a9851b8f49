import type { CallOptions, TestEmulator } from './emulator.js';

/** A small menu on a store: burgers with required and optional option groups, a drink, one sold out, one inactive. */
export async function seedMenu(emu: TestEmulator, credential?: string): Promise<void> {
  const put = async (path: string, body: unknown) => {
    const res = await emu.api('PUT', path, { body, credential });
    if (res.status >= 300) throw new Error(`PUT ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  await put('/catalog/categories/CAT-BURGER', { name: 'Hamburguesas' });
  await put('/catalog/categories/CAT-DRINK', { name: 'Bebidas' });
  await put('/catalog/products/HB-CLASICA', {
    name: 'Hamburguesa clásica', category_external_id: 'CAT-BURGER', price: '35000', sku: 'SKU-HB1',
    option_groups: [
      {
        external_id: 'GR-PUNTO', name: 'Punto de la carne', min_select: 1, max_select: 1,
        options: [{ external_id: 'OP-JUGOSO', name: 'Jugoso' }, { external_id: 'OP-AP', name: 'A punto' }],
      },
      {
        external_id: 'GR-EXTRAS', name: 'Extras', min_select: 0, max_select: 3,
        options: [{ external_id: 'OP-QUESO', name: 'Queso extra', price: '5000' }, { external_id: 'OP-BACON', name: 'Bacon', price: '7000.50' }],
      },
    ],
  });
  await put('/catalog/products/BEB-COCA', { name: 'Coca-Cola 500 ml', category_external_id: 'CAT-DRINK', price: '12000' });
  await put('/catalog/products/BEB-AGOTADA', { name: 'Jugo de naranja', category_external_id: 'CAT-DRINK', price: '9000', available: false });
  await put('/catalog/products/BEB-VIEJA', { name: 'Gaseosa retirada', category_external_id: 'CAT-DRINK', price: '9000', active: false });
}

/** Simulates an order through the control API; throws unless 201. */
export async function simulate(emu: TestEmulator, body: Record<string, unknown> = {}): Promise<any> {
  const res = await emu.control('POST', '/orders', { store_id: emu.test.store_id, ...body });
  if (res.status !== 201) throw new Error(`POST /_emulator/orders answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

let keySeq = 0;
/** A fresh Idempotency-Key for each write. */
export const key = () => `test-key-${Date.now()}-${++keySeq}`;

/** POST to an order action with a fresh Idempotency-Key. */
export function orderAction(emu: TestEmulator, orderId: string, action: 'ack' | 'import-failure' | 'status', body: unknown, o: CallOptions = {}) {
  return emu.api('POST', `/orders/${orderId}/${action}`, { body, idempotencyKey: key(), ...o });
}

/** The whole feed of the sandbox credential, following next_cursor while has_more. */
export async function readAllEvents(emu: TestEmulator, query = ''): Promise<any[]> {
  const events: any[] = [];
  let after: string | null = null;
  for (;;) {
    const qs: string = [query, after ? `after=${after}` : '', 'limit=200'].filter(Boolean).join('&');
    const res = await emu.api('GET', `/events?${qs}`);
    if (res.status !== 200) throw new Error(`GET /events answered ${res.status}: ${JSON.stringify(res.body)}`);
    events.push(...res.body.data);
    after = res.body.next_cursor;
    if (!res.body.has_more) return events;
  }
}
