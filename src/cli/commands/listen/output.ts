import { colors } from '../../output.js';
import type { SecretSource } from './configure.js';
import { MAX_EVENT_DEPTH } from './depth.js';
import { inOffsetOf } from './times.js';

/** What the listener reports for one request. Never carries the secret. */
export type ListenRecord =
  | {
      kind: 'event';
      received_at: string;
      event_id: string;
      delivery_id: string | null;
      type: string;
      duplicate: boolean;
      event: Record<string, unknown>;
      /** The developer's app's answer, with `--forward-to`. */
      forwarded_status?: number;
      /** Read from GET /events by `--backfill`, not received as a webhook. */
      backfill?: boolean;
      /** A change the own integration made (spec: Events, clients ignore them): neither forwarded nor remembered. */
      own?: boolean;
    }
  | { kind: 'rejected'; received_at: string; status: number; reason: string; event_id: string | null; delivery_id: string | null }
  | { kind: 'forward_failed'; received_at: string; event_id: string; error: string }
  /** An order read by GET /orders?updated_since after the feed cursor expired (not an API event). */
  | { kind: 'reconciled'; received_at: string; event: { type: string; data: { order: Record<string, unknown> } }; forwarded_status?: number };


function orderSummary(event: { data?: unknown }): string {
  const data = event.data as { order?: { id?: unknown; status?: unknown } } | undefined;
  const order = data?.order;
  if (!order || typeof order.id !== 'string') return '';
  return typeof order.status === 'string' ? `  ${order.id} (${order.status})` : `  ${order.id}`;
}

const REASONS: Record<string, string> = {
  missing_signature: 'no X-Service-Signature header',
  missing_timestamp: 'no X-Service-Timestamp header',
  invalid_timestamp: 'X-Service-Timestamp is not a number of seconds',
  timestamp_out_of_tolerance: 'the timestamp is more than 300 s away from the local clock',
  no_matching_signature: 'no signature matches the secret',
  invalid_json: 'the signed body is not a JSON object',
  too_deeply_nested: `the signed body nests deeper than ${MAX_EVENT_DEPTH} levels`,
  missing_event_id: 'the event has no id',
  payload_too_large: 'the body is over 5 MB',
  not_ready: 'the listener has no secret yet (configuring the webhook)',
};

/** When the record was received, in the offset its event carries (times.ts). */
function receivedAt(record: ListenRecord): string {
  const reference =
    record.kind === 'event' ? record.event.created_at : record.kind === 'reconciled' ? record.event.data.order.updated_at : undefined;
  return inOffsetOf(record.received_at, reference);
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T(\d{2}:\d{2}:\d{2})/;

/**
 * The time a human line shows (docs/webhooks.md): the event's own (`created_at`, a reconciled order's
 * `updated_at`) as the API wrote it, which follows the emulator's clock when it was advanced; the
 * arrival, in the event's offset, for what has no event to read (a refused request, a failed forward).
 */
function shownTime(record: ListenRecord): string {
  const own = record.kind === 'event' ? record.event.created_at : record.kind === 'reconciled' ? record.event.data.order.updated_at : undefined;
  const time = typeof own === 'string' ? DATE_TIME.exec(own)?.[1] : undefined;
  return time ?? receivedAt(record).slice(11, 19);
}

/** One human line: the event's time, type, event id, order id and status when present. */
function humanLine(record: ListenRecord): string {
  const c = colors();
  const time = shownTime(record);
  if (record.kind === 'rejected') {
    const id = record.event_id ? `  ${record.event_id}` : '';
    return `${c.dim(time)}  ${c.red(`rejected ${record.status}`)}${id}  ${REASONS[record.reason] ?? record.reason} (${record.reason})`;
  }
  if (record.kind === 'reconciled') {
    const forwarded = record.forwarded_status === undefined ? '' : `  → ${record.forwarded_status}`;
    return `${c.dim(time)}  ${c.green(record.event.type)}${orderSummary(record.event)}${forwarded}`;
  }
  if (record.kind === 'forward_failed') {
    return `${c.dim(time)}  ${c.red('forward failed 502')}  ${record.event_id}  ${record.error}`;
  }
  const mark = record.duplicate ? `  ${c.yellow('duplicate')}` : record.own ? `  ${c.yellow('skipped (own change)')}` : '';
  const forwarded = record.forwarded_status === undefined ? '' : `  → ${record.forwarded_status}`;
  const backfill = record.backfill ? `  ${c.cyan('backfill')}` : '';
  return `${c.dim(time)}  ${c.green(record.type)}  ${record.event_id}${orderSummary(record.event)}${mark}${forwarded}${backfill}`;
}

/** One JSON object per line (DESIGN: streams under --json). */
function jsonLine(listened: ListenRecord): string {
  const record = { ...listened, received_at: receivedAt(listened) } as ListenRecord;
  if (record.kind === 'event') {
    const { forwarded_status, backfill, own } = record;
    const line = { received_at: record.received_at, event_id: record.event_id, delivery_id: record.delivery_id, type: record.type, verified: true, duplicate: record.duplicate, event: record.event };
    return JSON.stringify({ ...line, ...(forwarded_status === undefined ? {} : { forwarded_status }), ...(backfill ? { backfill } : {}), ...(own ? { skipped: 'own_integration' } : {}) });
  }
  if (record.kind === 'reconciled') {
    const { forwarded_status } = record;
    return JSON.stringify({ received_at: record.received_at, type: record.event.type, reconciled: true, event: record.event, ...(forwarded_status === undefined ? {} : { forwarded_status }) });
  }
  if (record.kind === 'rejected') {
    const { kind: _kind, ...rest } = record;
    return JSON.stringify({ received_at: rest.received_at, verified: false, rejected: true, status: rest.status, reason: rest.reason, event_id: rest.event_id, delivery_id: rest.delivery_id });
  }
  const { kind: _kind, ...rest } = record;
  return JSON.stringify({ received_at: rest.received_at, event_id: rest.event_id, verified: true, forward_failed: true, error: rest.error });
}

export function printer(json: boolean | undefined): (record: ListenRecord) => void {
  return (record) => process.stdout.write(`${json ? jsonLine(record) : humanLine(record)}\n`);
}

/** What `--configure` did: the webhook, its event types, and where the secret in use came from. */
export interface Configured {
  url: string;
  created: boolean;
  events: string[];
  source: SecretSource;
  /** A secret made by this run (the webhook's creation or a rotation): printed once, here. */
  newSecret: string | null;
}

const SECRET_NOTES: Record<SecretSource, string> = {
  created: 'signing secret from its creation',
  rotated: 'signing secret rotated (the previous one still signs for 24 h)',
  kept: 'signing secret kept from the previous run',
  given: 'verifying with the secret given for this run',
};

/** The first output: the listener's URL (one JSON line with `--json`), what `--configure` did and where `--backfill` keeps its state. */
export function printReady(json: boolean, ready: { url: string; forwardTo: string | null; configured: Configured | null; cursorFile: string | null }): void {
  const c = ready.configured;
  if (json) {
    const line = {
      event: 'ready', url: ready.url, forward_to: ready.forwardTo, configured_url: c?.url ?? null,
      configured: c ? { created: c.created, events: c.events, secret: c.source } : null,
      // DESIGN: a secret is shown once, when it is made.
      ...(c?.newSecret ? { signing_secret: c.newSecret } : {}),
      cursor_file: ready.cursorFile,
      pid: process.pid,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const via = ready.forwardTo ? `, forwarding to ${ready.forwardTo}` : '';
  process.stdout.write(`Listening for webhooks on ${ready.url}${via} (pid ${process.pid}). Ctrl+C to stop.\n`);
  if (c) {
    process.stdout.write(`Webhook ${c.created ? 'created' : 'updated'} with the URL ${c.url} (events: ${c.events.join(', ')}); ${SECRET_NOTES[c.source]}\n`);
    if (c.newSecret) process.stdout.write(`Signing secret: ${c.newSecret} (new: shown once; the next listen --configure goes on with it, your app can verify with it)\n`);
  }
  if (ready.cursorFile) process.stdout.write(`Backfill on: feed position and handled events kept in ${ready.cursorFile}\n`);
}
