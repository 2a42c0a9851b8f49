import { ApiError } from '../../../client/errors.js';
import type { MerchantClient } from '../../../client/merchant-client.js';
import { ExitError } from '../../errors.js';
import { note } from '../../output.js';
import type { CursorState } from '../feed/cursor-file.js';
import { forwardUntilTaken, sleep } from '../feed/deliver.js';
import { drainFeed, transient, type FeedPage } from '../feed/drain.js';
import { eventJson, reconciledForwardHeaders, signedNow } from '../feed/events.js';
import { expiredNotice, ordersSince } from '../feed/reconcile.js';
import type { Dispatcher } from './dispatch.js';
import type { ListenRecord } from './output.js';

export interface ReconcileLoopOptions {
  client: MerchantClient;
  dispatcher: Dispatcher;
  state: CursorState;
  save: () => void;
  forwardTo?: URL;
  secret: () => string | null;
  report: (record: ListenRecord) => void;
  intervalMs: number;
  signal: AbortSignal;
}

/**
 * `listen --backfill`: right away, then every `intervalMs`, reads the feed from the kept cursor
 * and hands each event to the dispatcher, which skips those the webhook already brought (spec: GET
 * /events, "every 5 minutes as reconciliation with a webhook"). The first pass must succeed (a
 * wrong credential or cursor exits 1); later passes that meet an unavailable API try again at
 * the next interval. Rejects when stopped or on a failure that retrying cannot fix.
 */
export async function reconcileLoop(o: ReconcileLoopOptions): Promise<void> {
  const page = async (after: string | null, signal: AbortSignal): Promise<FeedPage> =>
    o.client.events.list({ ...(after ? { after } : {}), limit: 200 }, { signal });
  const handle = async (event: FeedPage['data'][number], signal: AbortSignal) => {
    const body = eventJson(event);
    if (body === null) return note(`Skipped ${event.id} (${event.type}) from the feed: it nests deeper than the listener accepts.`);
    await o.dispatcher.feed(event, body, signal);
  };
  for (let pass = 1; ; pass++) {
    try {
      await drainFeed({ page, state: o.state, save: o.save, savePerEvent: false, handle, onExpired: (since, signal) => reconcileOrders(o, since, signal), signal: o.signal });
    } catch (error) {
      if (o.signal.aborted) throw error;
      if (error instanceof ApiError && error.code === 'invalid_cursor') {
        throw new ExitError(`error: the feed position in the cursor file is not valid for this feed (400 invalid_cursor, request_id ${error.requestId}); was the emulator reset? Delete the file to start from the oldest available event.`);
      }
      if (pass === 1 || !transient(error)) throw error;
      note(`Reconciling from the feed failed (${(error as ApiError).code}); trying again in ${o.intervalMs / 1000} s.`);
    }
    await sleep(o.intervalMs, o.signal);
  }
}

/** After `cursor_expired`: every order changed since `since`, printed or forwarded (signed, until the app takes it). */
async function reconcileOrders(o: ReconcileLoopOptions, since: string, signal: AbortSignal): Promise<void> {
  note(expiredNotice(since));
  for await (const item of ordersSince(o.client, since, signal)) {
    const body = JSON.stringify(item);
    let forwarded_status: number | undefined;
    if (o.forwardTo) {
      const headers = () => signedNow(reconciledForwardHeaders(), o.secret(), body);
      forwarded_status = (await forwardUntilTaken({ url: o.forwardTo, headers, body, signal, maxDelayMs: Math.min(30_000, o.intervalMs), log: note, label: `order ${item.data.order.id}` })).status;
    }
    o.report({ kind: 'reconciled', received_at: new Date().toISOString(), event: item, ...(forwarded_status === undefined ? {} : { forwarded_status }) });
  }
}
