import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import type { EntregaCreate } from '../../src/contract/entregas.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { EntregaRecord } from './repository.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { courierQuote, ORDER_STATES_FOR_ENTREGA, toGuaranies, type EntregaPayment } from './rules.js';

const MANUAL_FIELDS = ['customer', 'address', 'payment_method', 'customer_total', 'customer_fee', 'courier_fee'] as const;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

type Draft = Pick<EntregaRecord, 'orderId' | 'paymentMethod' | 'customer' | 'address' | 'customerTotal' | 'customerFee' | 'courierFee'>;

function randomText(env: EnvContext, length: number, alphabet: string): string {
  return Array.from(env.random.bytes(length), (b) => alphabet[b % alphabet.length]).join('');
}

/** An order of the store, accepted and of delivery type, with no delivery under way: its data and quote. */
async function fromOrder(tx: Tx, storeId: string, orderId: string, body: EntregaCreate): Promise<Draft> {
  const extra = MANUAL_FIELDS.filter((f) => body[f] !== undefined);
  if (extra.length) {
    throw ApiError.validation(extra.map((field) => ({ field, code: 'not_allowed_with_order', message: 'Con order_id los datos salen del pedido; no envíe este campo.' })));
  }
  const order = await tx.orders.byId(orderId, { lock: true });
  if (!order || order.storeId !== storeId) throw ApiError.of('not_found');
  if (order.fulfillmentType !== 'delivery') {
    throw ApiError.field('order_id', 'not_delivery', 'El pedido no es de entrega a domicilio.');
  }
  if (!(ORDER_STATES_FOR_ENTREGA as readonly string[]).includes(order.status)) {
    throw ApiError.field('order_id', 'order_not_accepted', `El pedido debe estar aceptado y aún no despachado (estado actual: ${order.status}).`);
  }
  if (await tx.entregas.openForOrder(orderId)) {
    throw ApiError.field('order_id', 'already_requested', 'El pedido ya tiene una entrega en curso o terminada.');
  }
  const known: EntregaPayment[] = ['cash', 'bank_transfer', 'card_on_delivery', 'qr'];
  const method = order.payment.methodCode as EntregaPayment;
  const a = order.deliveryAddress;
  return {
    orderId,
    paymentMethod: order.paymentStatus === 'paid' ? 'prepaid' : known.includes(method) ? method : 'cash',
    customer: { name: order.customer.name, phone: order.customer.phone },
    address: {
      line: a ? [a.street, a.number, a.neighborhood, a.city].filter(Boolean).join(', ') : '',
      reference: a?.reference || null,
    },
    customerTotal: toGuaranies(order.total),
    customerFee: toGuaranies(order.deliveryFee),
    courierFee: courierQuote(order.deliveryFee),
  };
}

function manual(body: EntregaCreate): Draft {
  const missing: FieldIssue[] = MANUAL_FIELDS.filter((f) => body[f] === undefined).map((field) => ({
    field, code: 'required', message: 'Sin order_id, los datos de la entrega manual son obligatorios.',
  }));
  if (missing.length) throw ApiError.validation(missing);
  return {
    orderId: null,
    paymentMethod: body.payment_method!,
    customer: body.customer!,
    address: { line: body.address!.line, reference: body.address!.reference ?? null },
    customerTotal: body.customer_total!,
    customerFee: body.customer_fee!,
    courierFee: body.courier_fee!,
  };
}

/**
 * spec: POST /entregas — one delivery per `request_key` of the store: repeating it with the same
 * data answers the same delivery, with other data 409 `idempotency_conflict`.
 */
export async function createEntrega(
  env: EnvContext, storeId: string, integrationId: string, body: EntregaCreate,
): Promise<{ entrega: EntregaRecord; created: boolean }> {
  return env.store.tx(async (tx) => {
    const fingerprint = canonicalJson(body);
    const existing = await tx.entregas.byRequestKey(storeId, body.request_key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw ApiError.of('idempotency_conflict', undefined, 'Ya existe una entrega con este request_key y otros datos.');
      }
      return { entrega: existing, created: false };
    }
    const draft = body.order_id ? await fromOrder(tx, storeId, body.order_id, body) : manual(body);
    // spec: for transfers the merchant's confirmation of receipt is required.
    if (draft.paymentMethod === 'bank_transfer' && body.transfer_received !== true) {
      throw ApiError.field('transfer_received', 'transfer_confirmation_required', 'Confirme que recibió la transferencia (transfer_received: true).');
    }
    const now = env.clock.now();
    const entrega: EntregaRecord = {
      id: env.ids.next('entrega'),
      storeId,
      integrationId,
      requestKey: body.request_key,
      fingerprint,
      ...draft,
      status: 'requested',
      returnFee: null,
      settlementConfirmed: false,
      goodsReceived: false,
      refundConfirmed: false,
      transferReceived: body.transfer_received === true,
      cancelReason: null,
      notes: body.notes ?? null,
      deliveryCode: randomText(env, 4, '0123456789'),
      trackingToken: randomText(env, 24, CROCKFORD),
      history: [{ status: 'requested', at: now, note: null }],
      createdAt: now,
      updatedAt: now,
    };
    await tx.entregas.insert(entrega);
    return { entrega, created: true };
  });
}
