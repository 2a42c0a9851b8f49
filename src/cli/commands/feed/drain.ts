import { ApiError } from '../../../client/errors.js';
import type { FeedPage } from '../../../client/resources.js';
import type { CursorState } from './cursor-file.js';

/** spec: GET /events — response 200, typed from the contract's row (the client's `FeedPage`). */
export type { FeedPage };

/** One event as the feed gives it. */
export type FeedEvent = FeedPage['data'][number];

export interface DrainOptions {
  /** One GET /events call from `after` (null: the oldest available event). */
  page: (after: string | null, signal: AbortSignal) => Promise<FeedPage>;
  state: CursorState;
  /** Persists `state` (atomically). */
  save: () => void;
  /** Save after every handled event, not only at page ends: when handling has effects outside (forwarding). */
  savePerEvent: boolean;
  /** Handles one event; resolves once it is done (forwarded, printed or skipped). Rejects only when stopped. */
  handle: (event: FeedEvent, signal: AbortSignal) => Promise<void>;
  /** The feed said `cursor_expired`: reconcile from `since` before the page (which starts at the oldest event) is handled. */
  onExpired: (since: string, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
}

/**
 * Reads the feed from the saved cursor to its end, page after page while `has_more` (spec: GET
 * /events, "the client queries again at once"). After each handled event its id joins
 * `page_done`; after each page the cursor moves to `next_cursor` and `page_done` empties. So a stop
 * at any point, saved, resumes at the next unhandled event: nothing twice, nothing skipped.
 * Returns false when stopped by the signal.
 */
export async function drainFeed(o: DrainOptions): Promise<boolean> {
  const { state } = o;
  for (;;) {
    if (o.signal.aborted) return false;
    const page = await o.page(state.cursor, o.signal);
    if (page.cursor_expired) {
      await o.onExpired(state.last_event_at ?? state.started_at, o.signal);
      // Reconciled: the old position is gone for good, read on from the oldest available event.
      state.cursor = null;
      state.page_done = [];
      o.save();
    }
    const done = new Set(state.page_done);
    for (const event of page.data) {
      if (done.has(event.id)) continue;
      if (o.signal.aborted) return stopped(o);
      await o.handle(event, o.signal);
      state.page_done.push(event.id);
      state.last_event_at = event.created_at;
      if (o.savePerEvent) o.save();
    }
    const before = state.cursor;
    // An empty page from the start of an empty feed has no cursor yet: stay where we are.
    if (page.next_cursor !== null) state.cursor = page.next_cursor;
    state.page_done = [];
    o.save();
    // A server that says has_more without moving on would be asked again forever: wait for the next poll.
    if (!page.has_more || (page.data.length === 0 && state.cursor === before)) return true;
  }
}

function stopped(o: DrainOptions): false {
  o.save();
  return false;
}

/** An API failure that a later poll may not meet (the client already retried it). */
export function transient(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 0 || error.status === 429 || error.status >= 500);
}
