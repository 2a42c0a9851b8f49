import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import type { AuthContext } from '../http/auth.js';
import { authenticate, presentedDigest } from './authenticate.js';
import type { RateWindows, WindowHit } from '../store/coordination.js';
import { rateLimited, sendError } from '../http/reply.js';
import { takenFault, type FaultView } from '../faults.js';
import { isPromise, type MaybePromise } from '../store/maybe.js';
import type { Admission, AdmitRequest } from '../store/port.js';
import { parseAuthorization, type PresentedCredential } from '../stores/credentials.js';
import { environmentOf } from './base-path.js';

/**
 * One group of routes of the API (an aggregate's), registered once for both environments: a handler
 * takes its environment from the request (`call.env` in http/route.ts), never from its registration.
 */
export type RouteRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/**
 * The API of both environments, registered once under the live base path (a sandbox request is
 * routed there: api/base-path.ts), with the routes the root hands in (emulator/routes.ts). Its
 * onRequest hook sets the request's environment, then runs, in order: injected faults (they answer
 * before the request runs), the per-IP block after 30 authentication failures, the credential, and
 * the per-integration rate limit (spec: Authentication 5, Limits).
 */
export function envPlugin(emulator: Emulator, routes: readonly RouteRegistrar[]) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    addEnvHooks(app, emulator);
    for (const register of routes) register(app, emulator);
  };
}

/**
 * The environments' request pipeline, for a plugin under the live base path (tests add routes of
 * their own through it: they answer under both base paths).
 */
export function addEnvHooks(app: FastifyInstance, emulator: Emulator): void {
  const admissions = emulator.storage.admissions;
  // A server database: every route here is admitted by one statement (app.ts then skips its own
  // read of the shared state for it).
  if (admissions) {
    app.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), admitted: true } as typeof route.config;
    });
  }
  const limitHeader = String(emulator.storage.coordination.windows.limit('requests'));
  // A callback hook rather than an async one: no promise and no extra turn on every request.
  // A hook that answers does not call `done` (fastify then runs nothing more of the request).
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const env = emulator.envs[environmentOf(request)];
    request.env = env;
    // Read once: fastify builds the route's options anew on every read of `routeOptions`.
    const config = request.routeOptions.config;
    const pass = new Pass(emulator, env, request, reply, done, config?.public === true, limitHeader);
    if (!admissions || !config?.admitted) return pass.takeFault();
    const epoch = emulator.syncEpoch();
    admissions.admit(admitRequest(emulator, env, request, config, pass.presented)).then((admission) => {
      pass.admission = admission;
      // The shared state first (a clock moved, a reset made elsewhere), as app.ts's sync does.
      const adopted = emulator.adoptShared(admission.shared, epoch);
      if (isPromise(adopted)) adopted.then(() => pass.takeFault(), (error: Error) => done(error));
      else pass.takeFault();
    }, (error: Error) => done(error));
  });
}

/** What the request's admission reads: a public route's none of the credential's; a route with a prefetch its read. */
function admitRequest(
  emulator: Emulator, env: EnvContext, request: FastifyRequest, config: FastifyContextConfig | undefined, presented: PresentedCredential | undefined,
): AdmitRequest {
  return {
    environment: env.name,
    credential: presented && presented.env === env.name ? { keyId: presented.keyId, digest: presentedDigest(env, presented) } : null,
    ip: request.ip,
    limits: emulator.options.limits,
    realNow: Date.now(),
    now: env.clock.now(),
    read: config?.prefetch?.({ params: request.params, query: request.query }) ?? null,
  };
}

/**
 * One request's pass through the pipeline: injected faults, then the credential, the per-IP block
 * and the per-integration rate limit; `done` when the request may run. Each step may answer at once
 * (the embedded storage, a cached credential) or later (a server database): the usual request takes
 * no promise at all, and its steps are this object's methods rather than closures made for it. With
 * an admission (a server database), each step takes its answer from it when it answered that step.
 */
class Pass {
  /** The Authorization header's credential (undefined: none of that shape, or a public route). */
  readonly presented: PresentedCredential | undefined;
  /** The request's admission (a server database), once it answered. */
  admission: Admission | null = null;
  /** The emulator's time when the credential's steps began (every window of the request counts in it). */
  private now = 0;
  /** The credential's refusal, answered once its failure is counted. */
  private refusal: ApiError | null = null;

  constructor(
    private readonly emulator: Emulator,
    private readonly env: EnvContext,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly done: HookHandlerDoneFunction,
    /** A route that answers without a credential (the OpenAPI document). */
    private readonly isPublic: boolean,
    private readonly limitHeader: string,
  ) {
    this.presented = isPublic ? undefined : parseAuthorization(request.headers.authorization);
  }

  takeFault(): void {
    const url = this.request.url;
    const q = url.indexOf('?');
    step(this, this.emulator.storage.coordination.faults.take(this.request.method, q === -1 ? url : url.slice(0, q)), this.applyFault);
  }

  /** An injected fault answers before the request runs (after its delay); without one the request is admitted. */
  private applyFault(view: FaultView | undefined): void {
    if (!view) return this.admit();
    const fault = takenFault(view);
    const apply = () => {
      if (fault.error) return void sendError(this.request, this.reply, fault.error);
      this.admit();
    };
    if (fault.delayMs > 0) setTimeout(apply, fault.delayMs);
    else apply();
  }

  private admit(): void {
    if (this.isPublic) return this.done();
    this.now = this.env.clock.now();
    if (!this.emulator.options.limits) return this.authenticate();
    const admission = this.admission;
    const blocked = admission && admission.blocked !== null ? admission.blocked : this.windows.exhausted('auth_failures', this.request.ip, this.now);
    step(this, blocked, this.unlessBlocked);
  }

  private unlessBlocked(isBlocked: boolean): void {
    if (!isBlocked) return this.authenticate();
    step(this, this.windows.hit('auth_failures', this.request.ip, this.now), this.answerBlocked);
  }

  private answerBlocked(hit: WindowHit): void {
    sendError(this.request, this.reply, rateLimited(hit.retryAfterSeconds, this.env.clock.mode));
  }

  private authenticate(): void {
    let auth: MaybePromise<AuthContext>;
    try {
      auth = authenticate(this.env, this.presented, this.admission && { records: this.admission.records });
    } catch (error) {
      return this.refused(error);
    }
    if (isPromise(auth)) {
      auth.then((found) => this.authenticated(found), (error: unknown) => this.refused(error)).catch((error: unknown) => this.refused(error));
      return;
    }
    try {
      this.authenticated(auth);
    } catch (error) {
      this.refused(error);
    }
  }

  private authenticated(auth: AuthContext): void {
    const { request, admission } = this;
    request.auth = auth;
    if (admission) request.prefetch = { order: admission.order, orderStatus: admission.orderStatus, products: admission.products, feed: admission.feed };
    // The admission's hit was counted for this very credential, judged usable as it is here.
    const hit = admission?.hit && admission.records?.credential.keyId === auth.credential.keyId
      ? admission.hit
      : this.windows.hit('requests', auth.integration.id, this.now);
    step(this, hit, this.counted);
  }

  private counted(count: WindowHit): void {
    this.reply.header('X-RateLimit-Limit', this.limitHeader);
    this.reply.header('X-RateLimit-Remaining', String(count.remaining));
    if (this.emulator.options.limits && !count.allowed) return void sendError(this.request, this.reply, rateLimited(count.retryAfterSeconds, this.env.clock.mode));
    this.done();
  }

  private refused(error: unknown): void {
    if (!(error instanceof ApiError)) return this.fail(error);
    this.refusal = error;
    // The hit's own count decides: of failures racing past the block's check (several processes, or
    // requests in flight together), only the first 30 of the minute answer 401, the rest 429.
    step(this, this.windows.hit('auth_failures', this.request.ip, this.now), this.answerRefused);
  }

  private answerRefused(hit: WindowHit): void {
    const limited = this.emulator.options.limits && !hit.allowed;
    sendError(this.request, this.reply, limited ? rateLimited(hit.retryAfterSeconds, this.env.clock.mode) : this.refusal!);
  }

  fail(error: unknown): void {
    if (error instanceof ApiError) sendError(this.request, this.reply, error);
    else this.done(error as Error);
  }

  private get windows(): RateWindows {
    return this.emulator.storage.coordination.windows;
  }
}

/** `next(value)` on the pass now when the value is there, else when it comes; its `fail` on an error either way. */
function step<T>(pass: Pass, value: MaybePromise<T>, next: (this: Pass, value: T) => void): void {
  if (!isPromise(value)) {
    try {
      next.call(pass, value);
    } catch (error) {
      pass.fail(error);
    }
    return;
  }
  value.then((resolved) => next.call(pass, resolved), (error: unknown) => pass.fail(error)).catch((error: unknown) => pass.fail(error));
}
