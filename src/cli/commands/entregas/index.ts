import type { Command } from 'commander';
import { ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS, choiceOption, intOption, offers } from '../../options.js';

const MAX_GS = 1_000_000_000_000;

export interface CreateOptions {
  requestKey: string;
  orderId?: string;
  customerName?: string;
  customerPhone?: string;
  address?: string;
  reference?: string;
  paymentMethod?: string;
  customerTotal?: number;
  customerFee?: number;
  courierFee?: number;
  transferReceived?: boolean;
  notes?: string;
}

export interface ActionOptions {
  settlementConfirmed?: boolean;
  amount?: number;
  reason?: string;
  goodsReceived?: boolean;
  refundConfirmed?: boolean;
  returnFee?: number;
}

/** `merchant-kit entregas create|get|action`: independent deliveries (courier coordination). */
export function register(program: Command): void {
  const entregas = program
    .command('entregas')
    .description('Independent deliveries (courier coordination): request one, read it, act on it')
    .addHelpText('after', '\nExample:\n  $ merchant-kit entregas create --request-key ENV-0001 --order-id ord_01J…');
  const gs = (name: string) => intOption(name, 0, MAX_GS);
  entregas
    .command('create')
    .description('Request a delivery for an accepted delivery order, or a manual one (POST /entregas)')
    .requiredOption('--request-key <key>', 'your key for this request; repeating it returns the same delivery')
    .option('--order-id <id>', 'an accepted, quoted delivery-type order (ord_…)')
    .option('--customer-name <name>', 'manual delivery: customer name')
    .option('--customer-phone <phone>', 'manual delivery: customer phone')
    .option('--address <line>', 'manual delivery: address line')
    .option('--reference <text>', 'manual delivery: address reference')
    .option('--payment-method <method>', `manual delivery: ${ENTREGA_PAYMENT_METHODS.join(', ')}`, choiceOption(ENTREGA_PAYMENT_METHODS))
    .option('--customer-total <gs>', 'manual delivery: what the customer pays, whole guaraníes', gs('--customer-total'))
    .option('--customer-fee <gs>', 'delivery fee charged to the customer, whole guaraníes', gs('--customer-fee'))
    .option('--courier-fee <gs>', 'fee paid to the courier, whole guaraníes', gs('--courier-fee'))
    .option('--transfer-received', 'bank transfers: you confirm the money was received')
    .option('--notes <text>', 'notes for the courier')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit entregas create --request-key ENV-0001 --order-id ord_01J…\n' +
        '  $ merchant-kit entregas create --request-key ENV-0002 --customer-name "Ana Gómez" --customer-phone 0981123456 \\\n' +
        '      --address "Av. España 1234" --payment-method cash --customer-total 85000 --customer-fee 10000 --courier-fee 12000',
    )
    .action(async (options: CreateOptions, command: Command) => (await import('./create.js')).entregasCreateAction(options, command));
  entregas
    .command('get <id>')
    .description('Show one delivery (GET /entregas/{id})')
    .addHelpText('after', '\nExample:\n  $ merchant-kit entregas get ent_01J…')
    .action(async (id: string, _o: unknown, command: Command) => (await import('./get.js')).entregasGetAction(id, command));
  entregas
    .command('action')
    .description(`Act on a delivery (POST /entregas/{id}/{action}): ${ENTREGA_ACTIONS.join(', ')}`)
    .argument('<id>')
    .argument('<action>', ENTREGA_ACTIONS.join(', '), offers(ENTREGA_ACTIONS))
    .option('--settlement-confirmed', 'pickup: you confirm the settlement with the courier (required)')
    .option('--amount <gs>', 'raise_fee: the new courier fee, whole guaraníes', intOption('--amount', 1, MAX_GS))
    .option('--reason <text>', 'cancel: why (3 to 255 characters)')
    .option('--goods-received', 'returned: you got the goods back (required)')
    .option('--refund-confirmed', 'returned: the customer refund is confirmed')
    .option('--return-fee <gs>', 'returned: fee for the return trip, whole guaraníes', gs('--return-fee'))
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit entregas action ent_01J… pickup --settlement-confirmed\n' +
        '  $ merchant-kit entregas action ent_01J… raise_fee --amount 15000\n' +
        '  $ merchant-kit entregas action ent_01J… cancel --reason "Customer not answering"\n' +
        '  $ merchant-kit entregas action ent_01J… returned --goods-received --return-fee 5000',
    )
    .action(async (id: string, action: string, options: ActionOptions, command: Command) =>
      (await import('./action.js')).entregasActionAction(id, action, options, command),
    );
}
