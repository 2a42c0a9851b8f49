import { Chalk } from 'chalk';

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
    }
  | { kind: 'rejected'; received_at: string; status: number; reason: string; event_id: string | null; delivery_id: string | null }
  | { kind: 'forward_failed'; received_at: string; event_id: string; error: string };

/** Colours only on a terminal and never with NO_COLOR (DESIGN: CLI surface, output). */
function colours(stream: NodeJS.WriteStream): InstanceType<typeof Chalk> {
  const off = 'NO_COLOR' in process.env || !stream.isTTY;
  return new Chalk(off ? { level: 0 } : {});
}

function orderSummary(event: Record<string, unknown>): string {
  const data = event.data as { order?: { id?: unknown; status?: unknown } } | undefined;
  const order = data?.order;
  if (!order || typeof order.id !== 'string') return '';
  return typeof order.status === 'string' ? `  ${order.id} (${order.status})` : `  ${order.id}`;
}

const REASONS: Record<string, string> = {
  missing_signature: 'falta la cabecera X-Service-Signature',
  missing_timestamp: 'falta la cabecera X-Service-Timestamp',
  invalid_timestamp: 'X-Service-Timestamp no es un número de segundos',
  timestamp_out_of_tolerance: 'la marca de tiempo está a más de 300 s del reloj local',
  no_matching_signature: 'ninguna firma coincide con el secreto',
  invalid_json: 'el cuerpo firmado no es JSON',
  missing_event_id: 'el evento no trae id',
  payload_too_large: 'el cuerpo supera 5 MB',
  not_ready: 'el receptor aún no tiene el secreto (configurando el webhook)',
};

/** One human line: time, type, event id, order id and status when present. */
export function humanLine(record: ListenRecord, stream: NodeJS.WriteStream = process.stdout): string {
  const c = colours(stream);
  const time = record.received_at.slice(11, 19);
  if (record.kind === 'rejected') {
    const id = record.event_id ? `  ${record.event_id}` : '';
    return `${c.dim(time)}  ${c.red(`rechazado ${record.status}`)}${id}  ${REASONS[record.reason] ?? record.reason} (${record.reason})`;
  }
  if (record.kind === 'forward_failed') {
    return `${c.dim(time)}  ${c.red('reenvío fallido 502')}  ${record.event_id}  ${record.error}`;
  }
  const mark = record.duplicate ? `  ${c.yellow('duplicate')}` : '';
  const forwarded = record.forwarded_status === undefined ? '' : `  → ${record.forwarded_status}`;
  const backfill = record.backfill ? `  ${c.cyan('backfill')}` : '';
  return `${c.dim(time)}  ${c.green(record.type)}  ${record.event_id}${orderSummary(record.event)}${mark}${forwarded}${backfill}`;
}

/** One JSON object per line (DESIGN: streams under --json). */
export function jsonLine(record: ListenRecord): string {
  if (record.kind === 'event') {
    const { forwarded_status, backfill } = record;
    const line = { received_at: record.received_at, event_id: record.event_id, delivery_id: record.delivery_id, type: record.type, verified: true, duplicate: record.duplicate, event: record.event };
    return JSON.stringify({ ...line, ...(forwarded_status === undefined ? {} : { forwarded_status }), ...(backfill ? { backfill } : {}) });
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
