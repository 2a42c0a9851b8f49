import { InvalidArgumentError, type Command } from 'commander';
import { EVENT_TYPES, offers } from '../../options.js';

/** Seconds as a positive number (fractions allowed, so tests can poll fast), at most a day. */
export function seconds(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0) || n > 86_400) {
      throw new InvalidArgumentError(`${flag} takes seconds, a number above 0 and at most 86400.`);
    }
    return n;
  };
}

/** `merchant-kit feed tail`: the event feed without a webhook. */
export function register(program: Command): void {
  const feed = program
    .command('feed')
    .description('Read the event feed (GET /events) without a webhook')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit feed tail --cursor-file feed.cursor\n  $ merchant-kit feed tail --once --json\n');
  feed
    .command('tail')
    .description('Poll the event feed, print each event or forward it to your app, and remember where it stopped')
    .option('--types <a,b>', 'only these event types, comma-separated (e.g. order.created,order.status_changed)', offers(EVENT_TYPES, { list: true }))
    .option('--cursor-file <file>', 'where the position is saved after each page (atomically); a restart continues exactly there')
    .option('--interval <seconds>', 'seconds between polls once the feed is read to its end', seconds('--interval'), 15)
    .option('--forward-to <url>', 'POST each event (raw JSON) to your app; retried with backoff until it answers 2xx (https, or http only to loopback)')
    .option('--include-own', 'also handle changes made by this integration itself (skipped by default, as the spec asks)')
    .option('--once', 'read the feed to its end once and exit (for cron jobs)')
    .option('--json', 'one JSON object per line: the event as the API sent it')
    .addHelpText(
      'after',
      `
The target (base URL and credential) comes from flags, MERCHANT_KIT_* variables or the active profile.
When the cursor has expired (events are kept 30 days) it reconciles with GET /orders?updated_since=…
and prints or forwards each order as {"type":"order.reconciled","data":{"order":…}}.

Example:
  $ merchant-kit feed tail --cursor-file feed.cursor --forward-to http://localhost:3000/merchant/events`,
    )
    .action(async (options: Record<string, unknown>, command: Command) => {
      const { tailAction } = await import('./tail.js');
      const globals = command.optsWithGlobals();
      await tailAction(
        {
          types: options.types as string | undefined,
          cursorFile: options.cursorFile as string | undefined,
          interval: options.interval as number,
          forwardTo: options.forwardTo as string | undefined,
          includeOwn: Boolean(options.includeOwn),
          json: Boolean(options.json ?? globals.json),
          once: Boolean(options.once),
        },
        command,
      );
    });
}
