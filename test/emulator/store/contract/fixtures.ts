import { integrationSettings, SCOPES } from '../../../../src/contract/store.js';
import { IdFactory } from '../../../../src/contract/ids.js';
import { createClock } from '../../../../emulator/clock.js';
import type { EnvStore, Outbox, Repositories } from '../../../../emulator/store/port.js';
import type { CategoryRecord, OptionGroupRecord, OptionRecord, ProductRecord } from '../../../../emulator/catalog/repository.js';
import type { OrderRecord } from '../../../../emulator/orders/repository.js';
import type { EntregaRecord } from '../../../../emulator/entregas/repository.js';
import type { WebhookRecord } from '../../../../emulator/webhooks/repository.js';

// Records for the contract suite: every kind of value a column holds (amounts, times, nulls, JSON
// texts with non-ASCII characters, bytes), with ids that sort as the adapters must sort them.

export const T0 = Date.UTC(2026, 0, 15, 12);

let n = 0;
/** A 26-character tail that sorts in creation order (as the emulator's ULIDs do within a millisecond). */
export const tail = () => String(++n).padStart(26, '0');
export const id = (prefix: string) => `${prefix}_${tail()}`;

export async function storeWithIntegration(repos: Repositories, now = T0): Promise<{ storeId: string; integrationId: string }> {
  const storeId = id('str');
  const integrationId = id('int');
  await repos.stores.insert(
    { id: storeId, slug: `tienda-${storeId.slice(-6)}`, name: 'Tienda Ñandutí 🍕', switchOn: true, paymentMethods: ['cash', 'card_on_delivery'] as never, fulfillmentTypes: ['delivery', 'pickup'] },
    now,
  );
  await repos.integrations.insert(
    { id: integrationId, storeId, system: 'erp-de-prueba', scopes: [...SCOPES], settings: integrationSettings.parse({}) },
    now,
  );
  return { storeId, integrationId };
}

export function category(storeId: string, integrationId: string | null, over: Partial<CategoryRecord> = {}): CategoryRecord {
  return {
    id: id('cat'), storeId, integrationId, externalId: `CAT-${tail().slice(-4)}`, name: 'Pizzas "clásicas"', position: 1, active: true,
    sourceUpdatedAt: null, createdAt: T0, updatedAt: T0, ...over,
  };
}

export function product(storeId: string, integrationId: string | null, categoryId: string, over: Partial<ProductRecord> = {}): ProductRecord {
  return {
    id: id('prd'), storeId, integrationId, externalId: `P-${tail().slice(-4)}`, categoryId, name: 'Muzzarella \u00e1\u00e9 \\ "x" \u2028', price: 4_500_000_00,
    description: null, sku: 'SKU-1', active: true, available: true, position: null, photoUrl: null, photoSource: null, imageStatus: 'none',
    imageRequestedUrl: null, imageError: null, sourceUpdatedAt: T0 - 1000, createdAt: T0, updatedAt: T0, ...over,
  };
}

export function group(productId: string, integrationId: string | null, over: Partial<OptionGroupRecord> = {}): OptionGroupRecord {
  return { id: id('ogr'), productId, integrationId, externalId: `G-${tail().slice(-4)}`, name: 'Tamaño', minSelect: 0, maxSelect: 2, position: 0, ...over };
}

export function option(g: OptionGroupRecord, over: Partial<OptionRecord> = {}): OptionRecord {
  return {
    id: id('opt'), groupId: g.id, productId: g.productId, integrationId: g.integrationId, externalId: `O-${tail().slice(-4)}`, name: 'Grande',
    price: 1_000_00, available: true, position: 0, ...over,
  };
}

/** A category with one product, its one option group and that group's one option, written through `repos`. */
export async function productWithOption(repos: Repositories, storeId: string, integrationId: string | null) {
  const c = category(storeId, integrationId);
  await repos.catalog.insertCategory(c);
  const p = product(storeId, integrationId, c.id);
  await repos.catalog.insertProduct(p);
  const g = group(p.id, integrationId);
  await repos.catalog.insertGroup(g);
  const o = option(g);
  await repos.catalog.insertOption(o);
  return { category: c, product: p, group: g, option: o };
}

export function order(storeId: string, number: number, over: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: id('ord'), storeId, number, status: 'pending', statusReason: null, fulfillmentType: 'delivery', estimatedMinutes: null,
    createdAt: T0, updatedAt: T0, scheduledFor: null,
    customer: { name: 'Ana Pérez', phone: '+595981000000', billing: { document_type: 'ruc', document: '80000000-1', business_name: 'Ñ S.A.' } },
    deliveryAddress: { street: 'Mcal. López', number: '1234', neighborhood: 'Villa Morra', city: 'Asunción', reference: '', latitude: -25.28646, longitude: -57.647 },
    payment: { methodCode: 'cash', methodName: 'Efectivo', changeFor: 100_000_00 },
    paymentStatus: 'unpaid',
    items: [{
      line: 1, productId: id('prd'), productExternalId: 'P-1', sku: null, name: 'Pizza', unitPrice: 45_000_00, quantity: 2,
      options: [{ groupName: 'Tamaño', groupExternalId: null, optionId: id('opt'), optionExternalId: 'O-1', name: 'Grande', unitPrice: 5_000_00, quantity: 1 }],
      notes: 'sin cebolla', lineTotal: 100_000_00,
    }],
    notes: '', subtotal: 100_000_00, deliveryFee: 10_000_00, discount: 0, total: 110_000_00, ackStatus: 'pending', externalId: null,
    externalNumber: null, acknowledgedAt: null, ackIntegrationId: null, lastImportError: null, acceptedAt: null, ...over,
  };
}

export function webhook(storeId: string, integrationId: string, over: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    integrationId, storeId, url: 'https://erp.example/hooks', events: ['order.created', 'order.status_changed'], active: true, paused: false,
    pausedReason: null, secret: 'whsec_testsecretvalue0000000000', previousSecret: null, previousExpiresAt: null, failingSince: null,
    createdAt: T0, updatedAt: T0, ...over,
  };
}

export function entrega(storeId: string, integrationId: string, over: Partial<EntregaRecord> = {}): EntregaRecord {
  return {
    id: id('ent'), storeId, integrationId, requestKey: `req-${tail()}`, fingerprint: '{"a":1}', orderId: null, status: 'requested',
    paymentMethod: 'cash', customer: { name: 'Luis', phone: '+595981111111' }, address: { line: 'Calle 1', reference: null },
    customerTotal: 85_000, customerFee: 15_000, courierFee: 12_000, returnFee: null, settlementConfirmed: false, goodsReceived: false,
    refundConfirmed: false, transferReceived: false, cancelReason: null, notes: 'portón verde', deliveryCode: '4821',
    trackingToken: `tok_${tail()}`, history: [{ status: 'requested', at: T0, note: null }], createdAt: T0, updatedAt: T0, ...over,
  };
}

/** The outbox the suite uses: one delivery per event for an integration with a webhook. */
export function simpleOutbox(now: () => number): Outbox {
  return async (tx, event) => {
    const hook = await tx.webhooks.get(event.integrationId);
    if (!hook) return 0;
    await tx.webhooks.insertDelivery(
      { id: id('dlv'), integrationId: event.integrationId, eventId: event.id, eventType: event.type, body: JSON.stringify({ id: event.id, type: event.type, data: event.data }) },
      now(),
    );
    return 1;
  };
}

/** A promise and the function that settles it: one side of a race waits there for the other. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

export type { EnvStore };

/** What an adapter opened alone needs: a manual clock standing at T0, ids from it, no outbox. */
export function standaloneContext() {
  const clock = createClock('manual', () => T0);
  return { clock: () => clock, ids: () => new IdFactory(() => clock.now()), outbox: () => null };
}
