import type { DeliveryRecord, Webhook } from '../../../contract/webhooks.js';
import { printSummary, printTable } from '../../output.js';

/** The webhook without its secret (the secret is printed apart, and only where the API shows it). */
export function printWebhook(w: Webhook): void {
  printSummary([
    ['URL', w.url],
    ['Events', w.events.join(', ')],
    ['Active', w.active ? 'yes' : 'no'],
    ['Paused', w.paused ? `yes${w.paused_reason ? ` (${w.paused_reason})` : ''}` : 'no'],
    ['Updated', w.updated_at],
  ]);
}

/** Deliveries as a table: one row each, with the last attempt's result. */
export function printDeliveries(deliveries: DeliveryRecord[]): void {
  printTable(
    deliveries,
    [
      { header: 'ID', value: (d) => d.id },
      { header: 'EVENT', value: (d) => d.event_type },
      { header: 'STATUS', value: (d) => d.status },
      { header: 'ATTEMPTS', value: (d) => d.attempt_count, align: 'right' },
      { header: 'LAST RESULT', value: (d) => lastResult(d) },
      { header: 'NEXT ATTEMPT', value: (d) => d.next_attempt_at },
      { header: 'CREATED', value: (d) => d.created_at },
    ],
    'No deliveries.',
  );
}

function lastResult(d: DeliveryRecord): string | null {
  const last = d.attempts.at(-1);
  if (!last) return null;
  return last.response_status !== null ? `HTTP ${last.response_status}` : (last.error ?? null);
}
