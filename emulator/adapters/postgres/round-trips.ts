import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync, renameSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DescribingClient } from './described.js';

/** What a request (or the process on its own) sent: round trips waited for, and statements. */
interface Counts {
  trips: number;
  statements: number;
}

/** One request being counted: named by its route once routing has found it. */
interface Scope extends Counts {
  route: string;
  answered: boolean;
}

/**
 * The adapter's count of round trips to the database (issue 25: counted, not guessed). A statement
 * sent while its connection waits for nothing else starts a round trip; one sent behind others still
 * in flight (a pipelined transaction's writes) rides along theirs. Totals are kept always (two
 * increments); with `countRequests` (the benchmarks' MERCHANT_KIT_ROUND_TRIPS), each HTTP request
 * runs in a scope of its own, so that its statements are counted under its route, and what nothing
 * answered waits on (webhook deliveries, sweeps, leases, work a request left behind after its answer)
 * under the statement's own label.
 */
export class RoundTrips {
  readonly total: Counts = { trips: 0, statements: 0 };
  private readonly routes = new Map<string, Counts & { requests: number }>();
  private readonly background = new Map<string, Counts>();
  private scopes: AsyncLocalStorage<Scope> | null = null;
  private countingHttp = false;

  /** Counts per request from now on (costly: an async context per request). */
  countRequests(): void {
    this.scopes ??= new AsyncLocalStorage<Scope>();
  }

  get countingRequests(): boolean {
    return this.scopes !== null;
  }

  /**
   * Counts per HTTP request of this process from now on: each request that reaches a Node HTTP server
   * runs in a scope named by its method and path (ids written `:id`), closed when its answer is sent.
   * Node's own `http.server.request.start` channel opens it, so the HTTP layer knows nothing of it.
   */
  countHttpRequests(): void {
    // Its own flag: scopes opened by countRequests() alone (a test's) do not subscribe to the channel.
    if (this.countingHttp) return;
    this.countingHttp = true;
    this.countRequests();
    const scopes = this.scopes!;
    subscribe('http.server.request.start', (message) => {
      const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
      const scope: Scope = { route: routeOf(request.method ?? 'GET', request.url ?? '/'), answered: false, trips: 0, statements: 0 };
      scopes.enterWith(scope);
      response.once('finish', () => this.close(scope));
      response.once('close', () => this.close(scope));
    });
  }

  /** Runs `fn` (an HTTP request's handling) in a scope of its own; `answered()` closes it. */
  inRequest<T>(fn: () => T): T {
    if (!this.scopes) return fn();
    return this.scopes.run({ route: 'unrouted', answered: false, trips: 0, statements: 0 }, fn);
  }

  /** The request's route (`GET /sandbox/v1/orders/:order_id`), once known. */
  name(route: string): void {
    const scope = this.scopes?.getStore();
    if (scope) scope.route = route;
  }

  /** The request was answered: what it sent is its route's; what its work sends later is background. */
  answered(): void {
    const scope = this.scopes?.getStore();
    if (scope) this.close(scope);
  }

  private close(scope: Scope): void {
    if (scope.answered) return;
    scope.answered = true;
    let sum = this.routes.get(scope.route);
    if (!sum) this.routes.set(scope.route, (sum = { requests: 0, trips: 0, statements: 0 }));
    sum.requests++;
    sum.trips += scope.trips;
    sum.statements += scope.statements;
  }

  /** A statement sent; `trip` when it starts a round trip. `label` names it for the background's count. */
  sent(label: () => string, trip: boolean): void {
    this.total.statements++;
    if (trip) this.total.trips++;
    if (!this.scopes) return;
    const scope = this.scopes.getStore();
    if (scope && !scope.answered) {
      scope.statements++;
      if (trip) scope.trips++;
      return;
    }
    const key = label();
    let sum = this.background.get(key);
    if (!sum) this.background.set(key, (sum = { trips: 0, statements: 0 }));
    sum.statements++;
    if (trip) sum.trips++;
  }

  snapshot() {
    return {
      at: Date.now(),
      total: { ...this.total },
      // Copies: a caller keeping a snapshot keeps the counts as they were.
      requests: Object.fromEntries([...this.routes].map(([route, counts]) => [route, { ...counts }])),
      background: Object.fromEntries([...this.background].map(([label, counts]) => [label, { ...counts }])),
    };
  }

  /** Writes the snapshot to `path` (whole: written aside, then renamed over it). */
  writeTo(path: string): void {
    const aside = `${path}.${process.pid}.tmp`;
    writeFileSync(aside, JSON.stringify(this.snapshot()));
    renameSync(aside, path);
  }
}

/** A statement's label for the counts: its text, one line, without the schemas' names, cut short. */
export function labelOf(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/"[a-z0-9_]+_(?:live|test|shared)"\./g, '').trim().slice(0, 90);
}

/** `GET /sandbox/v1/orders/ord_1x2y3z` → `GET /sandbox/v1/orders/:id`: a request's route for the counts. */
export function routeOf(method: string, url: string): string {
  const path = url.split('?')[0]!;
  const segments = path.split('/').map((s) => (/^[a-z]+_[A-Za-z0-9]+$/.test(s) || /^\d+$/.test(s) || s.length > 24 ? ':id' : s));
  return `${method} ${segments.join('/')}`;
}

/** This process's count (one per process: every pool of every storage it opens adds to it). */
export const roundTrips = new RoundTrips();

/** pg's own fields (its public getters print a deprecation warning on every read). */
interface ClientQueue {
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
}

const textOf = (arg: unknown): string => (typeof arg === 'string' ? arg : ((arg as { text?: string } | null)?.text ?? ''));

/**
 * The pool's connections (named statements described once per connection: described.ts), each query counted as it is sent. A query sent while the
 * connection has none in flight or queued starts a round trip; one queued behind others does not.
 */
export class CountingClient extends DescribingClient {
  override query(...args: unknown[]): never {
    const c = this as unknown as ClientQueue;
    const trip = !c._activeQuery && (c._queryQueue?.length ?? 0) === 0;
    roundTrips.sent(() => labelOf(textOf(args[0])), trip);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
