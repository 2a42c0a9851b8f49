import { Argument, type Command } from 'commander';
import { FULFILLMENT_TYPES, ORDER_STATUSES, PANEL_STATUS_ACTORS } from '../../../contract/enums.js';
import { SIMULATOR_SCENARIOS, choiceOption, intOption, listOption } from '../../options.js';
import { ADMIN_TOKEN_HELP } from '../emulator/control-url.js';

export interface SimulateOptions {
  scenario: (typeof SIMULATOR_SCENARIOS)[number];
  count: number;
  adminToken?: string;
}

export interface SimulateStatusOptions {
  reason?: string;
  minutes?: number;
  by: (typeof PANEL_STATUS_ACTORS)[number];
}

export interface StoreUpdateOptions {
  store?: string;
  acceptingOrders?: 'on' | 'off';
  suspended?: 'on' | 'off';
  paymentMethods?: string[];
  fulfillmentTypes?: (typeof FULFILLMENT_TYPES)[number][];
}

const onOff = choiceOption(['on', 'off'] as const);

/** `merchant-kit simulate order|cancel|paid|status|store-update`: the customer's and the panel's side, on an emulator. */
export function register(program: Command): void {
  const simulate = program
    .command('simulate')
    .description("Emulator only: play the customer and the merchant's panel (orders, cancellations, payments, store changes)")
    .addHelpText('after', '\nExamples:\n  $ merchant-kit simulate order --scenario delivery\n  $ merchant-kit simulate cancel ord_01J… --reason "Changed my mind"');
  simulate
    .command('order')
    .description('Place simulated orders in the store of the credential in use (POST /_emulator/orders)')
    .option('--scenario <name>', `${SIMULATOR_SCENARIOS.join(', ')}`, choiceOption(SIMULATOR_SCENARIOS), 'delivery')
    .option('--count <n>', 'how many orders, 1 to 100', intOption('--count', 1, 100), 1)
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nThe store needs an active product and must be accepting orders (merchant-kit store open).\n\nExamples:\n  $ merchant-kit simulate order\n  $ merchant-kit simulate order --scenario pickup_invoice --count 3 --json',
    )
    .action(async (options: SimulateOptions, command: Command) => (await import('./order.js')).simulateOrderAction(options, command));
  simulate
    .command('cancel <order_id>')
    .description('The customer cancels the order (POST /_emulator/orders/{order_id}/status, by customer)')
    .requiredOption('--reason <text>', 'why, 3 to 255 characters')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nA customer may cancel a pending order whatever order_status_authority says; order.status_changed follows.\n\n' +
        'Examples:\n  $ merchant-kit simulate cancel ord_01J… --reason "Changed my mind"\n  $ merchant-kit simulate cancel ord_01J… --reason "Ordered twice" --json',
    )
    .action(async (id: string, options: { reason: string }, command: Command) =>
      (await import('./status.js')).simulateStatusAction(id, 'cancelled', { reason: options.reason, by: 'customer' }, command));
  simulate
    .command('paid <order_id>')
    .description("The order's payment arrives: payment_status becomes paid (PATCH /_emulator/orders/{order_id})")
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\norder.updated follows.\n\nExamples:\n  $ merchant-kit simulate paid ord_01J…\n  $ merchant-kit simulate paid ord_01J… --json')
    .action(async (id: string, _options: unknown, command: Command) => (await import('./paid.js')).simulatePaidAction(id, command));
  simulate
    .command('status <order_id>')
    .addArgument(new Argument('<status>', `the new status: ${ORDER_STATUSES.join(', ')}`).choices(ORDER_STATUSES))
    .description("A status change from the merchant's panel, the customer or the system (POST /_emulator/orders/{order_id}/status)")
    .option('--reason <text>', 'required for rejected and cancelled, 3 to 255 characters')
    .option('--minutes <n>', 'estimated minutes, with accepted', intOption('--minutes', 0, Number.MAX_SAFE_INTEGER))
    .option('--by <who>', `${PANEL_STATUS_ACTORS.join(', ')}`, choiceOption(PANEL_STATUS_ACTORS), 'store_user')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nThe same state machine as the API; a store_user change obeys order_status_authority (403 status_authority_denied when it is erp).\n\n' +
        'Examples:\n  $ merchant-kit simulate status ord_01J… accepted --minutes 25\n  $ merchant-kit simulate status ord_01J… rejected --reason "Sin stock" --by store_user',
    )
    .action(async (id: string, status: string, options: SimulateStatusOptions, command: Command) =>
      (await import('./status.js')).simulateStatusAction(id, status, options, command));
  simulate
    .command('store-update')
    .description("A change in the merchant's panel that integrations see as store.updated (PATCH /_emulator/stores/{store_id})")
    .option('--store <store_id>', 'the store (default: the store of the credential in use)')
    .option('--accepting-orders <on|off>', "the merchant's switch for taking orders", onOff)
    .option('--suspended <on|off>', 'suspend the store, or lift the suspension', onOff)
    .option('--payment-methods <list>', 'the whole list, comma-separated codes; name a new one code=Name (custom_vale=Vale)', listOption())
    .option('--fulfillment-types <list>', `the whole list: ${FULFILLMENT_TYPES.join(', ')}`, listOption(FULFILLMENT_TYPES))
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nstore.updated goes to every integration of the store when what the API shows changed (accepting_orders, payment methods, fulfillment types).\n\n' +
        'Examples:\n  $ merchant-kit simulate store-update --accepting-orders off\n' +
        '  $ merchant-kit simulate store-update --payment-methods cash,qr,"custom_vale=Vale de la casa" --fulfillment-types pickup',
    )
    .action(async (options: StoreUpdateOptions, command: Command) => (await import('./store-update.js')).storeUpdateAction(options, command));
}
