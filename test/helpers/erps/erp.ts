import { Api, ok, type RetryPolicy } from './api.js';
import { BackOffice, type Policy } from './back-office.js';
import { publish, type PublishStyle } from './catalog.js';
import { Inbox, pollFeed, startReceiver, type FeedPoller, type ReceiverOptions, type WebhookReceiver } from './intake.js';

// One zoo ERP put together from the shared pieces: how it calls the API, how it takes events in,
// how it publishes its menu, what it does with orders.

export interface ErpSpec {
  retry?: RetryPolicy;
  /** webhook: a receiver only; feed: polls GET /events, no webhook; both: a receiver and a reconciliation. */
  intake: 'webhook' | 'feed' | 'both';
  receiver?: ReceiverOptions;
  /** The feed's polling interval, drawn for each wait (feed and both). */
  pollMs?: () => number;
  publish?: PublishStyle;
  /** Publishes its menu only this long after starting (the session waits for it). */
  publishAfterMs?: number;
  policy?: Policy;
  /** Broken: takes every order version as the newest. */
  keepsOlderVersions?: boolean;
}

export interface ZooTarget {
  baseUrl: string;
  credential: string;
}

export interface ZooErp {
  api: Api;
  inbox: Inbox;
  receiver: WebhookReceiver | null;
  feed: FeedPoller | null;
  /** Unexpected errors of its own work (a test of a correct ERP asserts none). */
  errors: string[];
  /** Stops everything (a crash): the receiver refuses connections, the feed stops. */
  crash(): Promise<void>;
  /** Comes back on the same port and reconciles from the feed where it stopped. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startErp(target: ZooTarget, spec: ErpSpec): Promise<ZooErp> {
  const errors: string[] = [];
  const api = new Api(target.baseUrl, target.credential, spec.retry ?? 'honour');
  let inbox: Inbox;
  const office = new BackOffice(api, () => inbox, { ...spec.policy, importsByVersion: spec.keepsOlderVersions }, errors);
  inbox = new Inbox((order) => office.handle(order), errors, !spec.keepsOlderVersions);
  const me = await api.get('/me');
  if (me.status !== 200) throw new Error(`GET /me: ${me.status}`);
  const published = spec.publishAfterMs
    ? new Promise<void>((r) => setTimeout(r, spec.publishAfterMs)).then(() => publish(api, spec.publish ?? 'mixed')).catch((e: unknown) => void errors.push(`publish: ${String(e)}`))
    : publish(api, spec.publish ?? 'mixed');
  if (!spec.publishAfterMs) await published;
  let receiver: WebhookReceiver | null = null;
  if (spec.intake !== 'feed') {
    receiver = await startReceiver(inbox, spec.receiver);
    const put = await api.write('PUT', '/webhook', { url: receiver.url, events: ['*'] });
    if (!ok(put)) throw new Error(`PUT /webhook: ${put.status}`);
    receiver.secrets = [put.body.data.signing_secret];
  }
  const poll = spec.pollMs ?? (() => 15_000 + Math.random() * 15_000);
  let feed = spec.intake === 'webhook' ? null : pollFeed(api, inbox, poll, errors);
  // A webhook ERP that reconciles reads the feed once at start (then every 5 minutes).
  if (spec.intake === 'both') await feed!.readNow();
  return {
    api,
    inbox,
    receiver,
    get feed() {
      return feed;
    },
    errors,
    async crash() {
      feed?.stop();
      await receiver?.stop();
    },
    async restart() {
      await receiver?.listen();
      // The cursor survives the restart (kept on disk by a real ERP): what it missed comes from the feed.
      const reconcile = feed ?? pollFeed(api, inbox, () => 300_000, errors);
      await reconcile.readNow();
      if (spec.intake !== 'webhook') feed = pollFeed(api, inbox, poll, errors);
      else reconcile.stop();
    },
    async close() {
      feed?.stop();
      await published;
      await receiver?.close();
      await inbox.idle();
      await api.close();
    },
  };
}
