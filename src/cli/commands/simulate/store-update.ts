import type { Command } from 'commander';
import type { ControlStore, EmulatorControl } from '../../../client/emulator-control.js';
import type { PaymentMethod } from '../../../contract/store.js';
import { DEFAULT_PAYMENT_METHODS } from '../../../contract/payment-methods.js';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit, printSummary } from '../../output.js';
import { controlTarget, withControl } from '../emulator/control-call.js';
import { storeFields } from '../store/show.js';
import type { StoreUpdateOptions } from './index.js';

type StorePatch = Parameters<EmulatorControl['patchStore']>[1];

/**
 * `--payment-methods cash,qr,custom_vale=Vale`: each code with its name, from `code=Name`, else the
 * store's current method of that code, else the emulator's default name for a base code.
 */
async function paymentMethods(items: string[], current: PaymentMethod[]): Promise<PaymentMethod[]> {
  return items.map((item) => {
    const eq = item.indexOf('=');
    const code = (eq === -1 ? item : item.slice(0, eq)).trim();
    const named = eq === -1 ? undefined : item.slice(eq + 1).trim();
    const name = named || current.find((m) => m.code === code)?.name || DEFAULT_PAYMENT_METHODS.find((m) => m.code === code)?.name;
    if (!name) throw usageError(`error: the payment method ${code} needs a name: ${code}=Name`);
    return { code, name };
  });
}

/** The store to change: `--store`, else the store of the credential in use (GET /me). */
async function storeId(options: StoreUpdateOptions, command: Command): Promise<string> {
  if (options.store) return options.store;
  const ctx = await resolveContext(command).catch((error: Error) => {
    throw usageError(`${error.message} (or name the store with --store str_…)`);
  });
  return (await ctx.client().me()).store.id;
}

/** `simulate store-update`: PATCH /_emulator/stores/{store_id}, the merchant's panel. */
export async function storeUpdateAction(options: StoreUpdateOptions, command: Command): Promise<void> {
  const given = [options.acceptingOrders, options.suspended, options.paymentMethods, options.fulfillmentTypes];
  if (given.every((v) => v === undefined)) {
    throw usageError('error: give at least one of --accepting-orders, --suspended, --payment-methods and --fulfillment-types');
  }
  const target = await controlTarget(command);
  const id = await storeId(options, command);
  const store = await withControl(target, async (control) => {
    const patch: StorePatch = {};
    if (options.acceptingOrders) patch.accepting_orders = options.acceptingOrders === 'on';
    if (options.suspended) patch.suspended = options.suspended === 'on';
    if (options.fulfillmentTypes) patch.fulfillment_types = options.fulfillmentTypes;
    if (options.paymentMethods) patch.payment_methods = await paymentMethods(options.paymentMethods, await currentMethods(control, id));
    return control.patchStore(id, patch);
  });
  emit(target.json, store, printControlStore);
}

/** The store's payment methods as the panel sees them (none when the emulator has no such store: the PATCH then answers 404). */
async function currentMethods(control: EmulatorControl, id: string): Promise<PaymentMethod[]> {
  const state = await control.state();
  return state.environments.flatMap((e) => e.stores).find((s) => s.id === id)?.payment_methods ?? [];
}

function printControlStore(store: ControlStore): void {
  printSummary([
    ...storeFields(store),
    ['Environment', store.environment],
    ['Suspended', store.suspended ? 'yes' : 'no'],
    ["Merchant's switch", store.accepting_switch ? 'on' : 'off'],
  ]);
}
