import type { Command } from 'commander';
import { ApiError } from '../../../client/errors.js';
import type { MerchantClient } from '../../../client/merchant-client.js';
import { EVENT_TYPES } from '../../../contract/enums.js';
import type { EventType } from '../../../contract/events.js';
import { ExitError } from '../../errors.js';
import { resolveContext } from '../../context.js';
import { note, printReadyJson } from '../../output.js';
import { parseForwardUrl } from '../listen/forward.js';
import { loadState, type CursorState } from './cursor-file.js';
import { forwardUntilTaken, sleep } from './deliver.js';
import { drainFeed, transient, type FeedEvent, type FeedPage } from './drain.js';
import { eventJson, feedForwardHeaders, isOwnChange, reconciledForwardHeaders } from './events.js';
import { feedHumanLine, forwardedJson, type Printable } from './print.js';
import { expiredNotice, ordersSince } from './reconcile.js';
import { abortOnSignals, isStop } from './stop.js';

export interface TailOptions {
  /** `--types a,b` as typed. */
  types?: string;
  cursorFile?: string;
  /** Seconds between polls once the feed is drained. */
  interval: number;
  forwardTo?: string;
  includeOwn?: boolean;
  json?: boolean;
  once?: boolean;
}

/** How many events a page asks for: the spec's maximum, so a backlog drains in few calls. */
const PAGE_LIMIT = 200;

/** `--types a,b`: event types of the spec, checked before any call (usage error otherwise). */
export function parseTypes(value: string | undefined): EventType[] | undefined {
  if (value === undefined) return undefined;
  const types = value.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length > 0) {
    throw new ExitError(`error: --types: unknown event type ${unknown.join(', ') || '(none given)'}; the types are ${EVENT_TYPES.join(', ')}.`, 2);
  }
  return types as EventType[];
}

/** 400 invalid_cursor explained: the saved position is not one this integration's feed handed out. */
function invalidCursor(error: unknown, file: string | undefined): ExitError | null {
  if (!(error instanceof ApiError) || error.code !== 'invalid_cursor') return null;
  return new ExitError(
    `The cursor saved in ${file} is not valid for this feed (${error.status} invalid_cursor, request_id ${error.requestId}); ` +
      'was the emulator reset? Delete the file to start again from the oldest available event.',
  );
}

/**
 * `merchant-kit feed tail`: reads GET /events from the saved cursor, prints or forwards each
 * event, saves the position, and polls again every `interval` seconds until SIGINT/SIGTERM.
 */
export async function tailAction(options: TailOptions, command: Command): Promise<void> {
  const forwardTo = options.forwardTo ? parseForwardUrl(options.forwardTo) : undefined;
  const types = parseTypes(options.types);
  const ctx = await resolveContext(command);
  const client = ctx.client();
  try {
    const me = await client.me();
    const { state, save } = loadState(options.cursorFile, me.integration.id);
    // Until stopped (not --once): the pid, to stop it from a script.
    if (!options.once && options.json) printReadyJson({ base_url: ctx.baseUrl, integration_id: me.integration.id, cursor_file: options.cursorFile ?? null });
    else if (!options.once) note(`Following the event feed of ${ctx.baseUrl} every ${options.interval} s (pid ${process.pid}; Ctrl+C to stop).`);
    await tailLoop({ ...options, types, forwardTo }, client, me.integration.id, state, save);
  } finally {
    await client.close().catch(() => undefined);
  }
}

interface LoopOptions extends Omit<TailOptions, 'forwardTo' | 'types'> {
  forwardTo?: URL;
  types?: EventType[];
}

async function tailLoop(options: LoopOptions, client: MerchantClient, ownId: string, state: CursorState, save: () => void): Promise<void> {
  const controller = new AbortController();
  const { signal } = controller;
  const detach = abortOnSignals(controller, (name) => note(`${name}: stopping; the cursor is saved at the last event handled.`));
  const write = (line: string) => process.stdout.write(`${line}\n`);

  const deliver = async (item: Printable, body: string, headers: Record<string, string>, label: string) => {
    if (options.forwardTo) {
      const { status, attempts } = await forwardUntilTaken({ url: options.forwardTo, headers: () => headers, body, signal, maxDelayMs: options.interval * 1000, log: note, label });
      // One line per event the app took, as `listen --forward-to` prints (the retries went to stderr).
      write(options.json ? forwardedJson(item, status, attempts) : `${feedHumanLine(item)}  → ${status}`);
    } else {
      write(options.json ? body : feedHumanLine(item));
    }
  };
  const handle = async (event: FeedEvent) => {
    if (!options.includeOwn && isOwnChange(event, ownId)) return;
    const body = eventJson(event);
    if (body === null) return note(`Skipped ${event.id} (${event.type}): it nests deeper than the listener accepts.`);
    await deliver(event, body, feedForwardHeaders(event), event.id);
  };
  const onExpired = async (since: string) => {
    note(expiredNotice(since));
    for await (const item of ordersSince(client, since, signal)) {
      await deliver(item, JSON.stringify(item), reconciledForwardHeaders(), `order ${item.data.order.id}`);
    }
  };
  const page = async (after: string | null, s: AbortSignal): Promise<FeedPage> =>
    client.events.list({ ...(after ? { after } : {}), limit: PAGE_LIMIT, ...(options.types ? { types: options.types } : {}) }, { signal: s });

  try {
    for (;;) {
      try {
        await drainFeed({ page, state, save, savePerEvent: Boolean(options.forwardTo), handle, onExpired, signal });
      } catch (error) {
        if (isStop(error, signal)) break;
        const bad = invalidCursor(error, options.cursorFile);
        if (bad) throw bad;
        if (options.once || !transient(error)) throw error;
        note(`Reading the feed failed (${(error as ApiError).code}); trying again in ${options.interval} s.`);
      }
      if (options.once || signal.aborted) break;
      try {
        await sleep(options.interval * 1000, signal);
      } catch {
        break;
      }
    }
  } catch (error) {
    // Keep what was handled so far, then report the first failure (a failing save adds nothing).
    try {
      save();
    } catch {
      // the original error says more
    }
    throw error;
  } finally {
    detach();
  }
  save();
}
