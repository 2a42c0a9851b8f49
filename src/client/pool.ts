import { Agent, request, type Dispatcher } from 'undici';

/** One HTTP exchange as the transport sends it: the body already JSON-encoded. */
export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Aborts the exchange, body included; the promise then rejects with the signal's reason. */
  signal: AbortSignal;
}

/** An answer, its body read whole. Header names are lower case; a repeated header may be a list. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** The connections of one client: kept alive between its calls, closed by `close()` when they are its own. */
export interface Pool {
  send(url: string, exchange: Exchange): Promise<Answer>;
  /** True when `send` failed because the request was refused before it was sent (a header value with a line break): the caller's error, not the network's. */
  refused(cause: unknown): boolean;
  close(): Promise<void>;
}

/**
 * The library's pool: undici, on an `Agent` of the client's own or on the caller's `dispatcher` (which
 * `close()` leaves open). The CLI's build puts src/client/pool-node-http.ts in this file's place
 * (tsup.config.ts, `cliPool`): same interface, same errors, less code to load per command.
 */
export function openPool(dispatcher?: Dispatcher): Pool {
  const own = dispatcher === undefined;
  const used = dispatcher ?? new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
  return {
    send: (url, exchange) => sendThrough(used, url, exchange),
    refused: refusedByUndici,
    close: async () => {
      if (own) await used.close();
    },
  };
}

/** One exchange through an undici dispatcher. */
async function sendThrough(dispatcher: Dispatcher, url: string, exchange: Exchange): Promise<Answer> {
  const response = await request(url, {
    method: exchange.method as Dispatcher.HttpMethod,
    headers: exchange.headers,
    body: exchange.body,
    dispatcher,
    signal: exchange.signal,
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, bytes };
}

/** undici's error for a request it refuses to send. */
function refusedByUndici(cause: unknown): boolean {
  return (cause as { code?: unknown } | null)?.code === 'UND_ERR_INVALID_ARG';
}
