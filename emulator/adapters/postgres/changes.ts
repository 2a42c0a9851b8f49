import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { LocalChangeFeed, type Change, type ChangeFeed, type ChangeListener, type Topic } from '../../store/changes.js';
import { createClient, type Client, type ConnectOptions, type Pool } from './connect.js';
import { quote } from './schema.js';
import { parseChangeNotice, RefusedNotices, type ChangeNotice } from './change-notice.js';
import { escapeLiteral, type NoticeParts } from './conn.js';

/**
 * The change feed of a sandbox that several processes share. A transaction collects what it changed
 * and sends it with one NOTIFY just before COMMIT: PostgreSQL delivers it at commit, never for a
 * transaction that rolled back. The process that committed publishes its own changes at once (its
 * next request sees its caches already emptied); every process LISTENs on a connection of its own
 * and publishes the others' as they arrive. They arrive some time after the commit, so the feed is
 * not exact: caches of presented data are not used on this adapter.
 */
export class PgChangeFeed implements ChangeFeed {
  readonly exact = false;
  private readonly local = new LocalChangeFeed(false);
  private listener: Listener | null = null;
  private readonly refused: RefusedNotices;
  /** Told when another process changed what every request reads (faults, chaos, armed faults). */
  onSharedChange: () => void = () => undefined;

  constructor(
    private readonly channel: string,
    /** This process: its own notifications are not published twice. */
    readonly origin: string,
  ) {
    this.refused = new RefusedNotices(channel);
    this.ownPrefix = `${JSON.stringify({ o: origin }).slice(0, -1)},`;
  }

  /** How every notice of this process begins (`payloads`: its origin, then its changes or the shared mark). */
  private readonly ownPrefix: string;

  on<T extends Topic>(topic: T, listener: ChangeListener<T>): () => void {
    return this.local.on(topic, listener);
  }

  version(topic: Topic): number {
    return this.local.version(topic);
  }

  /** Publishes committed changes here, each once. */
  publish(changes: readonly Change[]): void {
    for (const change of unique(changes)) this.local.publish(change);
  }

  /**
   * A transaction's notices as one named statement's values each (`SELECT pg_notify($1, $2)`,
   * `NOTIFY_STATEMENT`): queued before its COMMIT, planned once per connection (issue 25).
   */
  notices(changes: readonly Change[]): [channel: string, payload: string][] {
    if (changes.length === 0) return [];
    return payloads(this.origin, unique(changes), false).map((p) => [this.channel, p]);
  }

  /** The statements (before COMMIT, in the same simple query) that tell the other processes. */
  notifyText(changes: readonly Change[], shared = false): string {
    if (changes.length === 0 && !shared) return '';
    return payloads(this.origin, unique(changes), shared)
      .map((p) => `SELECT pg_notify(${escapeLiteral(this.channel)}, ${escapeLiteral(p)});`)
      .join('');
  }

  /**
   * One change's notice around its store id (`Conn.notice`): the text `notifyText` would send for it,
   * cut where the store id's JSON goes (`change.storeId` is replaced by a mark, found once).
   */
  noticeParts(change: Change): NoticeParts {
    const mark = 'mk-store-id-mark';
    const [payload] = payloads(this.origin, [{ ...change, storeId: mark } as Change], false);
    const at = payload!.indexOf(JSON.stringify(mark));
    return { channel: this.channel, before: payload!.slice(0, at), after: payload!.slice(at + JSON.stringify(mark).length) };
  }

  /** Tells the other processes of changes already committed (a write outside a transaction). */
  async notify(pool: Pool, changes: readonly Change[], shared = false): Promise<void> {
    const text = this.notifyText(changes, shared);
    if (text) await pool.query(text).catch(() => undefined); // the write stands; a lost notice only delays others' caches
  }

  async listen(url: string, options: ConnectOptions): Promise<void> {
    this.listener = new Listener(url, options, this.channel, (text) => this.received(text), () => this.resync());
    await this.listener.start();
  }

  async close(): Promise<void> {
    await this.listener?.stop();
  }

  /**
   * A notice from the channel. Any role that can connect may NOTIFY on it (issue 24): a payload is
   * used only when it is whole one of ours, and nothing done with it may end the process — a
   * listener that throws is told like a refused notice, and the rest of the notice is still published.
   */
  private received(text: string): void {
    // This process's own notice (every write's, back from the server) goes unread: not parsed to be dropped.
    if (text.startsWith(this.ownPrefix)) return;
    const notice = parseChangeNotice(text);
    if (!notice) return this.refused.refused(text);
    if (notice.o === this.origin) return;
    const fail = (error: unknown) => this.refused.refused(text, `a listener failed on it (${error instanceof Error ? error.message : String(error)})`);
    if (notice.s) {
      try {
        this.onSharedChange();
      } catch (error) {
        fail(error);
      }
    }
    for (const change of notice.c ?? []) {
      try {
        this.local.publish(change);
      } catch (error) {
        fail(error);
      }
    }
  }

  /**
   * After the listening connection was lost, notices sent meanwhile are gone: everything another
   * process may have changed is published as changed.
   */
  private resync(): void {
    for (const environment of ENVIRONMENTS) {
      this.local.publish({ topic: 'auth', environment });
      this.local.publish({ topic: 'catalog', environment, storeId: null });
      this.local.publish({ topic: 'webhooks', environment, storeId: null, config: true });
    }
    this.local.publish({ topic: 'clock', environment: null });
    this.onSharedChange();
  }
}

type Message = ChangeNotice;

/** A change's identity: every field a change of its topic can hold (store/changes.ts), in one text. */
function keyOf(change: Change): string {
  const c = change as Partial<Record<'storeId' | 'orderId' | 'config' | 'type', unknown>>;
  return `${change.topic}\u0001${change.environment}\u0001${c.storeId}\u0001${c.orderId}\u0001${c.config}\u0001${c.type}`;
}

/**
 * Each change once (the last of equal ones), in the order of their first: a transaction that writes an
 * order three times tells it once. Keyed by its fields rather than its JSON (issue 25: this runs twice
 * per write, for the notice and for the publication).
 */
function unique(changes: readonly Change[]): Change[] {
  if (changes.length < 2) return [...changes];
  const seen = new Map<string, Change>();
  for (const change of changes) seen.set(keyOf(change), change);
  return [...seen.values()];
}

/** A NOTIFY payload holds less than 8000 bytes: many changes go in several, delivered together in order. */
const MAX_PAYLOAD = 7000;

function payloads(origin: string, changes: Change[], shared: boolean): string[] {
  const out: string[] = [];
  let batch: Change[] = [];
  let size = 0;
  const flush = (last: boolean) => {
    const message: Message = { o: origin };
    if (batch.length) message.c = batch;
    if (last && shared) message.s = 1;
    if (message.c || message.s) out.push(JSON.stringify(message));
    batch = [];
    size = 0;
  };
  for (const change of changes) {
    const length = Buffer.byteLength(JSON.stringify(change));
    if (size + length > MAX_PAYLOAD && batch.length) flush(false);
    batch.push(change);
    size += length + 1;
  }
  flush(true);
  return out;
}

/** One connection that LISTENs, and connects again (with a growing pause) whenever it is lost. */
class Listener {
  private client: Client | null = null;
  private stopped = false;
  private pauseMs = 100;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly options: ConnectOptions,
    private readonly channel: string,
    private readonly deliver: (payload: string) => void,
    private readonly reconnected: () => void,
  ) {}

  async start(): Promise<void> {
    const client = createClient(this.url, this.options);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => {
      if (n.channel !== this.channel || n.payload === undefined) return;
      try {
        this.deliver(n.payload);
      } catch {
        // deliver() tells what it refuses; an exception here would end the process (issue 24)
      }
    });
    await client.connect();
    await client.query(`LISTEN ${quote(this.channel)}`);
    this.client = client;
    this.pauseMs = 100;
  }

  private lost(client: Client): void {
    if (this.client !== client && this.client !== null) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopped) return;
      this.start().then(
        () => this.reconnected(),
        () => {
          this.pauseMs = Math.min(this.pauseMs * 2, 5000);
          this.schedule();
        },
      );
    }, this.pauseMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
