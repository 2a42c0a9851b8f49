import type { AckStatus, ChangeActor, OrderStatus } from '../../src/contract/orders.js';
import type { ApiEvent, EventType } from '../../src/contract/events.js';

// The orders aggregate's records and repositories: orders with their status history, and the events
// of the feed (which the webhooks' outbox also reads). The adapters in emulator/store/* implement them.

/** An item option as copied at purchase time; amounts in hundredths. */
export interface StoredItemOption {
  groupName: string;
  groupExternalId: string | null;
  optionId: string;
  optionExternalId: string | null;
  name: string;
  unitPrice: number;
  quantity: number;
}

export interface StoredItem {
  line: number;
  productId: string;
  productExternalId: string | null;
  sku: string | null;
  name: string;
  unitPrice: number;
  quantity: number;
  options: StoredItemOption[];
  notes: string;
  lineTotal: number;
}

export interface Customer {
  name: string;
  phone: string;
  billing?: { document_type: 'ruc' | 'ci'; document: string; business_name: string };
}

export interface Address {
  street: string;
  number: string;
  neighborhood: string;
  city: string;
  reference: string;
  latitude: number | null;
  longitude: number | null;
}

export interface StoredPayment {
  methodCode: string;
  methodName: string;
  changeFor: number | null;
}

export interface ImportErrorRecord {
  code: string;
  message: string;
  retryable: boolean;
  at: number;
}

export interface OrderRecord {
  id: string;
  storeId: string;
  number: number;
  status: OrderStatus;
  statusReason: string | null;
  fulfillmentType: 'delivery' | 'pickup';
  estimatedMinutes: number | null;
  createdAt: number;
  updatedAt: number;
  scheduledFor: number | null;
  customer: Customer;
  deliveryAddress: Address | null;
  payment: StoredPayment;
  paymentStatus: 'unpaid' | 'paid';
  items: StoredItem[];
  notes: string;
  subtotal: number;
  deliveryFee: number;
  discount: number;
  total: number;
  ackStatus: AckStatus;
  externalId: string | null;
  externalNumber: string | null;
  acknowledgedAt: number | null;
  ackIntegrationId: string | null;
  lastImportError: ImportErrorRecord | null;
  /** When the order left `pending` for `accepted` (drives the after_acceptance ack alert). */
  acceptedAt: number | null;
}

export interface HistoryRecord {
  status: OrderStatus;
  at: number;
  by: ChangeActor;
  integrationId: string | null;
  reason: string | null;
}

export interface OrderListArgs {
  storeId: string;
  afterNumber: number;
  limit: number;
  statuses: OrderStatus[] | null;
  ackStatus: AckStatus | null;
  createdSince: number | null;
  updatedSince: number | null;
}

export interface OrdersRepository {
  /**
   * A new order; with `entry`, its first history entry too (a server database writes both in one
   * statement: issue 25), as `addHistory` would.
   */
  insert(order: OrderRecord, entry?: HistoryRecord): Promise<void>;
  /**
   * The order; with `lock` the row is held for the rest of the transaction (a server database: a
   * second writer waits; the embedded one runs one transaction at a time anyway).
   */
  byId(id: string, options?: { lock?: boolean }): Promise<OrderRecord | undefined>;
  /** The store's order confirmed with that code (spec: GET /orders/by-external-id). */
  byExternalId(storeId: string, externalId: string): Promise<OrderRecord | undefined>;
  /**
   * Writes every field of the record back (the record was read in the same transaction); with
   * `entry`, the history entry of that change too, in the same statement on a server database.
   */
  update(order: OrderRecord, entry?: HistoryRecord): Promise<void>;
  /** Oldest first, by number, after `afterNumber`. */
  list(args: OrderListArgs): Promise<OrderRecord[]>;
  /** Orders not yet confirmed as imported (pending or failed), for the panel's alerts. */
  notAcknowledged(storeId: string): Promise<OrderRecord[]>;
  addHistory(orderId: string, entry: HistoryRecord): Promise<void>;
  history(orderId: string): Promise<HistoryRecord[]>;
  /**
   * The order with its history, oldest first (GET /orders/{id}): a server database reads both in one
   * statement (issue 25); left out, `orderWithHistory` reads one after the other.
   */
  withHistory?(id: string): Promise<{ order: OrderRecord; history: HistoryRecord[] } | undefined>;
  /** The store's highest order number, 0 before its first order. */
  lastNumber(storeId: string): Promise<number>;
  /**
   * Ids of the store's active, available products in active categories (only panel ones if asked), in
   * id order. Read-only: a server database hands the same kept list to every reader while the store's
   * catalog is unchanged (issue 25).
   */
  orderableProductIds(storeId: string, panelOnly?: boolean): Promise<readonly string[]>;
}

/** `data` of an event of type T, as its contract schema reads it. */
export type EventData<T extends EventType> = Extract<ApiEvent, { type: T }>['data'];

export interface EventRecord {
  /** The feed position: events of one environment in the order they can be read. */
  seq: number;
  id: string;
  type: EventType;
  storeId: string;
  integrationId: string;
  createdAt: number;
  data: Record<string, unknown>;
}

/** A feed row: the stored `data` as its UTF-8 bytes (copied into the response, never decoded). */
export interface EventBytes {
  seq: number;
  id: string;
  type: string;
  storeId: string;
  integrationId: string;
  createdAt: number;
  data: Buffer;
}

export interface FeedPageArgs {
  integrationId: string;
  after: number;
  /** Events older than this (ms) are past retention. */
  cutoff: number;
  types: readonly string[];
  limit: number;
}

export interface FeedAfterArgs extends Omit<FeedPageArgs, 'after'> {
  cursor: { seq: number; createdAt: number };
}

export interface FeedAfter {
  cursorEvent: Pick<EventRecord, 'integrationId' | 'createdAt'> | null;
  maxSeq: number;
  rows: EventBytes[];
}

export interface EventsRepository {
  /** Writes one event; its `seq` is given here. */
  insert(event: Omit<EventRecord, 'seq'>): Promise<EventRecord>;
  byId(id: string): Promise<EventRecord | undefined>;
  bySeq(seq: number): Promise<EventRecord | undefined>;
  /** One page of the feed (spec: GET /events), in strict creation order, `data` kept as bytes. */
  feedPage(args: FeedPageArgs): Promise<EventBytes[]>;
  /**
   * A page after a cursor in one read (issue 25; optional: the embedded adapter reads one by one):
   * the cursor's event as stored (null: none at that position), the highest position handed out, and
   * the page read after the cursor when the cursor names the integration's event at its time and
   * within retention, else from the start.
   */
  feedAfter?(args: FeedAfterArgs): Promise<FeedAfter>;
  /** The integration's newest event not older than `cutoff`, or null. */
  latestSeq(integrationId: string, cutoff: number): Promise<number | null>;
  /** The highest position ever handed out (0 when none). */
  maxSeq(): Promise<number>;
  /** Deletes events older than `cutoff`; how many went. */
  purgeBefore(cutoff: number): Promise<number>;
}

/** The order with its history (one read where the adapter has it). */
export async function orderWithHistory(orders: OrdersRepository, id: string): Promise<{ order: OrderRecord; history: HistoryRecord[] } | undefined> {
  if (orders.withHistory) return orders.withHistory(id);
  const order = await orders.byId(id);
  return order && { order, history: await orders.history(id) };
}
