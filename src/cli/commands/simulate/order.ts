import type { Command } from 'commander';
import type { Order } from '../../../contract/orders.js';
import { resolveContext, type CliContext } from '../../context.js';
import { ExitError, withHint } from '../../errors.js';
import { noEmulatorLine, TOKEN_ADVICE } from '../emulator/control-call.js';
import { emit, plural, withSpinner } from '../../output.js';
import { printOrders } from '../orders/show.js';
import type { SimulateOptions } from './index.js';

/**
 * Refuses with one clear line a target where nothing answers (an emulator that is not running), an
 * emulator behind a token, and a server that is not an emulator (no control API at `…/_emulator/health`).
 */
async function requireEmulator(ctx: CliContext): Promise<void> {
  const answer = await ctx.control().probe();
  if (answer === 'emulator') return;
  if (answer === 'unreachable') {
    throw new ExitError(noEmulatorLine(ctx.baseUrl), 1);
  }
  if (answer === 'needs_token') {
    throw new ExitError(`error: the emulator's control API at ${ctx.adminUrl} refused access; ${TOKEN_ADVICE}`, 1);
  }
  throw new ExitError(`error: ${ctx.baseUrl} is not a merchant-kit emulator (no control API at ${ctx.adminUrl}); simulate works only against an emulator`, 1);
}

/** Creates `--count` simulated orders for the store of the credential in use (found with GET /me). */
export async function simulateOrderAction(options: SimulateOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  await requireEmulator(ctx);
  const me = await ctx.client().me();
  const orders: Order[] = [];
  try {
    await withSpinner(
      `Simulating ${plural(options.count, 'order')}`,
      async () => {
        for (let i = 0; i < options.count; i++) {
          orders.push(await ctx.control().simulateOrder({ store_id: me.store.id, scenario: options.scenario }));
        }
      },
      { json: ctx.json },
    );
  } catch (error) {
    throw (error as { code?: unknown }).code === 'store_closed' ? withHint(error, STORE_CLOSED_HINT) : error;
  }
  emit(ctx.json, orders, printOrders);
}

/** spec: a store takes orders once it has an active product and its switch is on. */
const STORE_CLOSED_HINT =
  'a store takes orders once it has an active product and is open: add one ("merchant-kit catalog product set …", or "merchant-kit catalog sync FILE"), then "merchant-kit store open" if it was paused';
