import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { OrderRecord, StoredItem, StoredPayment } from './repository.js';
import type { StoreRecord } from '../stores/repository.js';
import type { SimulateOrderRequest } from '../../src/contract/orders.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseDate } from '../../src/contract/dates.js';
import { createPanelProductIn } from '../catalog/panel.js';
import { acceptingWith } from '../stores/present.js';
import { AmountTooLarge, orderTotals } from './totals.js';
import { Chance } from './chance.js';
import { randomItems, renumber, resolveItems } from './cart.js';
import { fakeAddress, fakeCustomer } from './customer.js';
import { keepPresented } from './present.js';
import { DELIVERY_FEES_PYG, ORDER_NOTES, PANEL_PROMO } from './sample-data.js';

const GS = 100; // one guaraní in hundredths

function fulfillmentFor(store: StoreRecord, request: SimulateOrderRequest, chance: Chance): 'delivery' | 'pickup' {
  const wanted = request.scenario === 'delivery' ? 'delivery' : request.scenario === 'pickup_invoice' ? 'pickup' : null;
  if (wanted === null) return chance.pick(store.fulfillmentTypes);
  if (!store.fulfillmentTypes.includes(wanted)) {
    throw ApiError.field('scenario', 'fulfillment_unavailable', `El comercio no ofrece ${wanted === 'delivery' ? 'envío a domicilio' : 'retiro en el local'}.`);
  }
  return wanted;
}

/** The scenario `unmapped_product` needs a panel product: DESIGN says the simulator makes one when the store has none. */
async function panelProductIds(env: EnvContext, tx: Tx, storeId: string): Promise<readonly string[]> {
  const found = await tx.orders.orderableProductIds(storeId, true);
  if (found.length > 0) return found;
  return [(await createPanelProductIn(env, tx, storeId, PANEL_PROMO)).id];
}

async function itemsFor(
  env: EnvContext, tx: Tx, store: StoreRecord, request: SimulateOrderRequest, chance: Chance, orderable: Promise<readonly string[]> | undefined,
): Promise<StoredItem[]> {
  let items = request.items ? await resolveItems(tx, store.id, request.items) : [];
  if (!request.items) {
    const ids = await (orderable ?? tx.orders.orderableProductIds(store.id));
    items = await randomItems(tx, chance, ids);
    if (items.length === 0 && request.scenario !== 'unmapped_product') {
      throw ApiError.field('items', 'no_products_available', 'El comercio no tiene productos disponibles para pedir.');
    }
  }
  if (request.scenario === 'unmapped_product' && !items.some((i) => i.productExternalId === null)) {
    items = [...items, ...(await randomItems(tx, chance, await panelProductIds(env, tx, store.id), 1))];
    if (!items.some((i) => i.productExternalId === null)) {
      throw ApiError.field('scenario', 'no_panel_product', 'No hay un producto del panel que se pueda pedir.');
    }
  }
  return renumber(items);
}

/**
 * spec: Order rule 2 — amounts are exact integers of hundredths: an order whose lines (the random
 * ones included) or sum would pass 2^53 − 1 is refused, 422 on `items` (a line the request named is
 * refused on its own quantity, cart.ts).
 */
async function exactly<T>(compute: () => T | Promise<T>): Promise<T> {
  try {
    return await compute();
  } catch (error) {
    if (!(error instanceof AmountTooLarge)) throw error;
    throw ApiError.field('items', 'too_large', 'El total del pedido supera el máximo que se calcula con exactitud (2^53 − 1 centésimos); pida menos unidades.');
  }
}

function paymentFor(store: StoreRecord, code: string | undefined, total: number, chance: Chance): StoredPayment {
  const method = code === undefined ? chance.pick(store.paymentMethods) : store.paymentMethods.find((m) => m.code === code);
  if (!method) throw ApiError.field('payment_method_code', 'unknown_payment_method', 'El comercio no ofrece ese medio de pago.');
  if (method.code !== 'cash') return { methodCode: method.code, methodName: method.name, changeFor: null };
  // Cash: the customer pays with the next round sum (50.000 or 100.000 Gs. bills) and expects change.
  const bill = chance.pick([50_000, 100_000]) * GS;
  const changeFor = Math.ceil(total / bill) * bill || bill;
  // Past the exact range (a total within a bill of 2^53), the customer pays the exact sum.
  return { methodCode: method.code, methodName: method.name, changeFor: Number.isSafeInteger(changeFor) ? changeFor : total };
}

function scheduledFor(env: EnvContext, text: string | undefined): number | null {
  if (text === undefined) return null;
  const at = parseDate(text);
  if (at <= env.clock.now()) throw ApiError.field('scheduled_for', 'not_future', 'scheduled_for debe ser una fecha futura.');
  return at;
}

/**
 * DESIGN: POST /_emulator/orders — a complete order priced from the store's current catalog, with
 * `number` from the store's sequence, its history and its `order.created` event in one transaction.
 */
export async function simulateOrder(env: EnvContext, request: SimulateOrderRequest): Promise<OrderRecord> {
  const order = await simulateOrderIfStore(env, request);
  if (!order) throw ApiError.of('not_found', undefined, 'No existe ese comercio.');
  return order;
}

/**
 * `simulateOrder`, answering undefined (nothing written) when this environment has no such store: the
 * control route looks for the store's environment with it, instead of a read of the store before
 * the transaction that reads it again (issue 25: a round trip less on a server database).
 */
export async function simulateOrderIfStore(env: EnvContext, request: SimulateOrderRequest): Promise<OrderRecord | undefined> {
  const chance = new Chance(env.random);
  return env.store.tx(async (tx): Promise<OrderRecord | undefined> => {
    // The store, whether it has an active product and (a random cart) its orderable products are
    // read together: a server database sends them in one round trip with BEGIN (issue 25), where
    // one after the other took three. The two catalog reads are wasted only on a refused order.
    const orderable = request.items ? undefined : tx.orders.orderableProductIds(request.store_id);
    const [store, hasActiveProduct] = await Promise.all([tx.stores.byId(request.store_id), tx.stores.hasActiveProduct(request.store_id), orderable]);
    if (!store) return undefined;
    if (store.suspended) throw ApiError.of('store_suspended');
    if (!acceptingWith(store, hasActiveProduct)) throw ApiError.of('store_closed');
    const fulfillment = fulfillmentFor(store, request, chance);
    const schedule = scheduledFor(env, request.scheduled_for);
    // The order's number is taken before the cart is read: a server database sends the number's
    // UPDATE (which locks the store's row until the COMMIT) with the cart's reads, one round trip
    // fewer for the same hold (issue 25, eleventh step). A refused cart rolls the number back.
    const number = tx.stores.nextOrderNumber(store.id);
    number.catch(() => undefined);
    const items = await exactly(() => itemsFor(env, tx, store, request, chance, orderable));
    const deliveryFee = fulfillment === 'delivery' ? chance.pick(DELIVERY_FEES_PYG) * GS : 0;
    const gross = await exactly(() => orderTotals(items, deliveryFee, 0).subtotal);
    // Now and then a 10 % promotion, rounded down to whole 100 Gs.
    const discount = chance.bool(0.2) ? Math.floor(gross / 10 / (100 * GS)) * 100 * GS : 0;
    const totals = await exactly(() => orderTotals(items, deliveryFee, discount));
    const now = env.clock.now();
    const order: OrderRecord = {
      id: env.ids.next('order'),
      storeId: store.id,
      number: await number,
      status: 'pending',
      statusReason: null,
      fulfillmentType: fulfillment,
      estimatedMinutes: null,
      createdAt: now,
      updatedAt: now,
      scheduledFor: schedule,
      customer: fakeCustomer(chance, request.scenario === 'pickup_invoice'),
      deliveryAddress: fulfillment === 'delivery' ? fakeAddress(chance) : null,
      payment: paymentFor(store, request.payment_method_code, totals.total, chance),
      paymentStatus: 'unpaid',
      items,
      notes: request.notes ?? (chance.bool(0.4) ? chance.pick(ORDER_NOTES) : ''),
      subtotal: totals.subtotal,
      deliveryFee: totals.deliveryFee,
      discount: totals.discount,
      total: totals.total,
      ackStatus: 'pending',
      externalId: null,
      externalNumber: null,
      acknowledgedAt: null,
      ackIntegrationId: null,
      lastImportError: null,
      acceptedAt: null,
    };
    await tx.orders.insert(order, { status: 'pending', at: now, by: 'customer', integrationId: null, reason: null });
    await tx.emit('order.created', store.id, { order: await keepPresented(tx.orders, order) });
    return order;
  });
}
