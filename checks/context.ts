import type { MerchantClient } from '../src/client/merchant-client.js';
import type { EmulatorControl } from '../src/client/emulator-control.js';
import type { Order } from '../src/contract/orders.js';
import type { MeContext } from '../src/contract/store.js';
import type { ReferenceReceiver } from './internal/receiver.js';

export type Scenario = 'delivery' | 'pickup_invoice' | 'unmapped_product';

/** What one check leaves for the next ones (the integration, the receiver, the orders received). */
export interface SharedState {
  me?: MeContext;
  /** Set when the target does not answer as the API (down, garbage): later checks fail at once with it. */
  unreachable?: string;
  receiver?: ReferenceReceiver;
  /** The webhook before the run pointed it at the receiver (null: none), to put back afterwards. */
  previousWebhook?: { url: string; events: string[]; active: boolean } | null;
  orders?: Partial<Record<Scenario, Order>>;
  /** Paths (under the base path) whose next answer is a fault the run armed on purpose (the retries check's). */
  armedFaults?: Set<string>;
}

/** Everything a check's `run` may use. */
export interface RunContext {
  client: MerchantClient;
  /** The emulator's control API; null against a real environment. */
  control: EmulatorControl | null;
  /** interactive: a person creates orders in the panel; non_interactive: such steps are skipped. */
  mode: 'automatic' | 'interactive' | 'non_interactive';
  /** The base URL's path (`/sandbox/v1`), for fault globs. */
  basePath: string;
  state: SharedState;
  signal: AbortSignal;
  /** Real-time budget for waits on a person or a feed (ms). */
  waitMs: number;
  /** Shows a line to the person running the command (interactive steps). */
  say(line: string): void;
  /** A run-unique suffix for external codes and keys (so reruns do not collide). */
  runId: string;
}
