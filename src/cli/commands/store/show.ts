import type { Store } from '../../../contract/store.js';
import { printSummary } from '../../output.js';

/** The store's summary lines (also the start of the panel's view in `simulate store-update`). */
export function storeFields(s: Store): [string, unknown][] {
  return [
    ['Store', `${s.name} (${s.id}, ${s.slug})`],
    ['Accepting orders', s.accepting_orders ? 'yes' : 'no'],
    ['Fulfillment', s.fulfillment_types.join(', ')],
    ['Payment methods', s.payment_methods.map((p) => p.code).join(', ')],
    ['Timezone', s.timezone],
    ['Currency', s.currency],
  ];
}

/** The store as a short summary. */
export function printStore(s: Store): void {
  printSummary(storeFields(s));
}
