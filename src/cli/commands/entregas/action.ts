import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output.js';
import { ENTREGA_ACTIONS } from '../../options.js';
import type { ActionOptions } from './index.js';
import { printEntrega } from './show.js';

type Action = (typeof ENTREGA_ACTIONS)[number];

/** The body of each action from its flags; a missing required flag is a usage error before any call. */
function actionBody(action: string, o: ActionOptions): Record<string, unknown> {
  if (!(ENTREGA_ACTIONS as readonly string[]).includes(action)) {
    throw usageError(`error: unknown action "${action}"; accepted: ${ENTREGA_ACTIONS.join(', ')}`);
  }
  switch (action as Action) {
    case 'pickup':
      if (!o.settlementConfirmed) throw usageError('error: pickup needs --settlement-confirmed');
      return { settlement_confirmed: true };
    case 'raise_fee':
      if (o.amount === undefined) throw usageError('error: raise_fee needs --amount <gs>');
      return { amount: o.amount };
    case 'cancel':
      if (!o.reason) throw usageError('error: cancel needs --reason <text>');
      return { reason: o.reason };
    case 'returned':
      if (!o.goodsReceived) throw usageError('error: returned needs --goods-received');
      return {
        goods_received: true,
        ...(o.refundConfirmed ? { refund_confirmed: true } : {}),
        ...(o.returnFee === undefined ? {} : { return_fee: o.returnFee }),
      };
  }
}

/** POST /entregas/{id}/{action}. */
export async function entregasActionAction(id: string, action: string, options: ActionOptions, command: Command): Promise<void> {
  const body = actionBody(action, options);
  const ctx = await resolveContext(command);
  const entrega = await ctx.client().entregas.action(id, action as Action, body as never);
  emit(ctx.json, entrega, printEntrega);
}
