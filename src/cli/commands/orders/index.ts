import type { Command } from 'commander';
import { ACK_STATUSES, IMPORT_FAILURE_CODES, ORDER_STATUSES, choiceOption, dateTimeOption, intOption, listOption, offers } from '../../options.js';

export interface OrdersListOptions {
  status?: string[];
  ackStatus?: (typeof ACK_STATUSES)[number];
  since?: string;
  all?: boolean;
  limit?: number;
}

export interface AckOptions {
  externalId: string;
  externalNumber?: string;
}

export interface FailOptions {
  code: (typeof IMPORT_FAILURE_CODES)[number];
  message: string;
  retryable?: boolean;
}

export interface StatusOptions {
  reason?: string;
  minutes?: number;
  occurredAt?: string;
}

/** `merchant-kit orders list|get|ack|fail|status`. */
export function register(program: Command): void {
  const orders = program
    .command('orders')
    .description('Orders: list and read them, confirm their import (ack), report failures, change status')
    .addHelpText('after', '\nExample:\n  $ merchant-kit orders list --ack-status pending');
  orders
    .command('list')
    .description('List orders, oldest first (GET /orders)')
    .option('--status <list>', `comma-separated statuses: ${ORDER_STATUSES.join(', ')}`, listOption(ORDER_STATUSES))
    .option('--ack-status <status>', `import state: ${ACK_STATUSES.join(', ')}`, choiceOption(ACK_STATUSES))
    .option('--since <datetime>', 'only orders updated since this ISO 8601 date-time (updated_since)', dateTimeOption('--since'))
    .option('--all', 'read every page (otherwise only the first)')
    .option('--limit <n>', 'orders per page, 1 to 200', intOption('--limit', 1, 200))
    .addHelpText('after', '\nExamples:\n  $ merchant-kit orders list --status pending,accepted\n  $ merchant-kit orders list --ack-status pending --all --json')
    .action(async (options: OrdersListOptions, command: Command) => (await import('./list.js')).ordersListAction(options, command));
  orders
    .command('get <order_id>')
    .description('Show one order (GET /orders/{order_id})')
    .addHelpText('after', '\nExample:\n  $ merchant-kit orders get ord_01J…')
    .action(async (id: string, _o: unknown, command: Command) => (await import('./get.js')).ordersGetAction(id, command));
  orders
    .command('ack <order_id>')
    .description('Confirm the order was imported into your system (POST /orders/{order_id}/ack)')
    .requiredOption('--external-id <code>', 'the order code in your system (1 to 64 of A-Z a-z 0-9 . _ : -)')
    .option('--external-number <n>', 'the order number shown in your system (max 64)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit orders ack ord_01J… --external-id ERP-1001 --external-number 1001')
    .action(async (id: string, options: AckOptions, command: Command) => (await import('./ack.js')).ordersAckAction(id, options, command));
  orders
    .command('fail <order_id>')
    .description('Report that the order could not be imported (POST /orders/{order_id}/import-failure)')
    .requiredOption('--code <code>', `reason code: ${IMPORT_FAILURE_CODES.join(', ')}`, choiceOption(IMPORT_FAILURE_CODES))
    .requiredOption('--message <text>', 'what went wrong, shown to the merchant (max 500)')
    .option('--retryable', 'your system will try to import it again')
    .addHelpText('after', '\nExample:\n  $ merchant-kit orders fail ord_01J… --code unmapped_product --message "Product X has no code" --retryable')
    .action(async (id: string, options: FailOptions, command: Command) => (await import('./fail.js')).ordersFailAction(id, options, command));
  orders
    .command('status')
    .description(`Change the order status (POST /orders/{order_id}/status): ${ORDER_STATUSES.join(', ')}`)
    .argument('<order_id>')
    .argument('<status>', ORDER_STATUSES.join(', '), offers(ORDER_STATUSES))
    .option('--reason <text>', 'required for rejected and cancelled (3 to 255 characters, the customer sees it)')
    .option('--minutes <n>', 'estimated minutes, only with accepted (1 to 600)', intOption('--minutes', 1, 600))
    .option('--occurred-at <datetime>', 'when it happened in your system (ISO 8601 with offset)', dateTimeOption('--occurred-at'))
    .addHelpText('after', '\nExamples:\n  $ merchant-kit orders status ord_01J… accepted --minutes 30\n  $ merchant-kit orders status ord_01J… rejected --reason "Out of stock"')
    .action(async (id: string, status: string, options: StatusOptions, command: Command) =>
      (await import('./status.js')).ordersStatusAction(id, status, options, command),
    );
}
