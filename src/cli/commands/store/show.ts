import type { Store } from '../../../contract/store.js';
import { printSummary } from '../../output.js';

/** The store as a short summary. */
export function printStore(s: Store): void {
  printSummary([
    ['Store', `${s.name} (${s.id}, ${s.slug})`],
    ['Accepting orders', s.accepting_orders ? 'yes' : 'no'],
    ['Fulfillment', s.fulfillment_types.join(', ')],
    ['Payment methods', s.payment_methods.map((p) => p.code).join(', ')],
    ['Timezone', s.timezone],
    ['Currency', s.currency],
  ]);
}
