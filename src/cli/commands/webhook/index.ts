import type { Command } from 'commander';
import { DELIVERY_STATUSES, choiceOption, eventsOption, intOption } from '../../options.js';

export interface SetOptions {
  url: string;
  events?: string[];
}

export interface DeliveriesOptions {
  status?: (typeof DELIVERY_STATUSES)[number];
  limit?: number;
}

/** `merchant-kit webhook get|set|test|rotate-secret|deliveries|retry`. */
export function register(program: Command): void {
  const webhook = program
    .command('webhook')
    .description("The integration's webhook: configure it, test it, rotate its secret, inspect and resend deliveries")
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook set --url https://erp.example.com/webhooks --events order.created,order.status_changed');
  webhook
    .command('get')
    .description('Show the webhook (GET /webhook)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook get --json')
    .action(async (_o: unknown, command: Command) => (await import('./get.js')).webhookGetAction(command));
  webhook
    .command('set')
    .description('Create or update the webhook (PUT /webhook); on creation the signing secret is printed once')
    .requiredOption('--url <url>', 'public HTTPS URL that receives the events (http:// only to loopback on an emulator)')
    .option('--events <list>', 'comma-separated event types, or * for all (default: keep the current list; * when new)', eventsOption())
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook set --url https://erp.example.com/webhooks --events "*"')
    .action(async (options: SetOptions, command: Command) => (await import('./set.js')).webhookSetAction(options, command));
  webhook
    .command('test')
    .description('Queue a webhook.test event (POST /webhook/test)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook test')
    .action(async (_o: unknown, command: Command) => (await import('./test.js')).webhookTestAction(command));
  webhook
    .command('rotate-secret')
    .description('New signing secret, printed once; the previous one stays valid for a while (POST /webhook/rotate-secret)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook rotate-secret')
    .action(async (_o: unknown, command: Command) => (await import('./rotate.js')).webhookRotateAction(command));
  webhook
    .command('deliveries')
    .description('Recent deliveries and their attempts (GET /webhook/deliveries)')
    .option('--status <status>', `only deliveries in this state: ${DELIVERY_STATUSES.join(', ')}`, choiceOption(DELIVERY_STATUSES))
    .option('--limit <n>', 'how many, 1 to 200', intOption('--limit', 1, 200))
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook deliveries --status failed')
    .action(async (options: DeliveriesOptions, command: Command) => (await import('./deliveries.js')).webhookDeliveriesAction(options, command));
  webhook
    .command('retry <delivery_id>')
    .description('Resend one delivery now (POST /webhook/deliveries/{delivery_id}/retry)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit webhook retry dlv_01J…')
    .action(async (id: string, _o: unknown, command: Command) => (await import('./retry.js')).webhookRetryAction(id, command));
}
