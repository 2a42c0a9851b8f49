import { ApiError } from '../../src/contract/errors.js';
import { entregaActionBodies, type EntregaAction } from '../../src/contract/entregas.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Repositories, Tx } from '../store/port.js';
import type { EntregaRecord } from './repository.js';
import { entregaTransition, refundApplies } from './rules.js';

/** A delivery of the store, or 404 (another store's is never revealed). */
export async function entregaOfStore(r: Repositories, storeId: string | null, id: string, lock = false): Promise<EntregaRecord> {
  const e = await r.entregas.byId(id, { lock });
  if (!e || (storeId !== null && e.storeId !== storeId)) throw ApiError.of('not_found');
  return e;
}

/** The changes an action's body makes, after its own rules. */
function changesFor(e: EntregaRecord, action: EntregaAction, raw: unknown): { change: Partial<EntregaRecord>; note: string | null } {
  switch (action) {
    case 'pickup':
      parseOrThrow(entregaActionBodies.pickup, raw);
      return { change: { settlementConfirmed: true }, note: null };
    case 'raise_fee': {
      const { amount } = parseOrThrow(entregaActionBodies.raise_fee, raw);
      if (amount <= e.courierFee) throw ApiError.field('amount', 'not_higher', `La nueva tarifa debe superar la actual (${e.courierFee}).`);
      return { change: { courierFee: amount }, note: `courier_fee ${e.courierFee} → ${amount}` };
    }
    case 'cancel': {
      const { reason } = parseOrThrow(entregaActionBodies.cancel, raw);
      return { change: { cancelReason: reason }, note: reason };
    }
    case 'returned': {
      const body = parseOrThrow(entregaActionBodies.returned, raw);
      if (refundApplies(e.paymentMethod) && body.refund_confirmed !== true) {
        throw ApiError.field('refund_confirmed', 'required', 'El cliente ya había pagado: confirme la devolución del dinero (refund_confirmed: true).');
      }
      if (!refundApplies(e.paymentMethod) && body.refund_confirmed !== undefined) {
        throw ApiError.field('refund_confirmed', 'not_applicable', 'El cliente no pagó por adelantado: no hay devolución que confirmar.');
      }
      return { change: { goodsReceived: true, refundConfirmed: body.refund_confirmed === true, returnFee: body.return_fee ?? null }, note: null };
    }
  }
}

/**
 * spec: POST /entregas/{id}/{action} — `pickup`, `raise_fee`, `cancel`, `returned`. An action not
 * allowed in the current state answers 409 `invalid_status_transition` with `details.current_status`.
 */
export async function applyEntregaAction(env: EnvContext, storeId: string, id: string, action: EntregaAction, raw: unknown): Promise<EntregaRecord> {
  return env.store.tx(async (tx) => {
    const e = await entregaOfStore(tx, storeId, id, true);
    const to = entregaTransition(e.status, action);
    if (to === null) throw ApiError.of('invalid_status_transition', { current_status: e.status }, 'La entrega no admite esa acción en su estado actual.');
    const { change, note } = changesFor(e, action, raw);
    return save(env, tx, { ...e, ...change }, to, note);
  });
}

/** The courier completes the delivery with the code the customer gives them (control API). */
export async function deliverEntrega(env: EnvContext, id: string, code: string): Promise<EntregaRecord> {
  return env.store.tx(async (tx) => {
    const e = await entregaOfStore(tx, null, id, true);
    if (entregaTransition(e.status, 'deliver') === null) {
      throw ApiError.of('invalid_status_transition', { current_status: e.status }, 'La entrega no admite esa acción en su estado actual.');
    }
    if (code !== e.deliveryCode) throw ApiError.field('delivery_code', 'mismatch', 'El código no coincide con el del cliente.');
    return save(env, tx, e, 'delivered', null);
  });
}

async function save(env: EnvContext, tx: Tx, e: EntregaRecord, to: EntregaRecord['status'], note: string | null): Promise<EntregaRecord> {
  const now = env.clock.now();
  const next: EntregaRecord = { ...e, status: to, history: [...e.history, { status: to, at: now, note }], updatedAt: now };
  await tx.entregas.update(next);
  return next;
}
