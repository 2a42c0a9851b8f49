import { inspect } from 'node:util';
import type { z } from 'zod';
import type { Dispatcher } from 'undici';
import type {
  controlCredentialRotate, controlFault, controlHomologationStart, controlIntegrationPatch, controlStoreCreate, controlStorePatch,
} from '../contract/control.js';
import type { Order, panelOrderPatch, panelStatusChangeBody, simulateOrderRequest } from '../contract/orders.js';
import type { PanelProductInput, PanelProductPatch } from '../contract/panel-catalog.js';
import type { DeliveryRecord, Webhook, WebhookChaos, drainResult, webhookChaos, webhookPanelInput } from '../contract/webhooks.js';
import type { Product } from '../contract/catalog.js';
import type { ClockMode, StoreAlert } from '../contract/control.js';
import type { Environment, IntegrationSettings, IntegrationStatus, Scope, Store } from '../contract/store.js';
import type { ResponseInfo } from './types.js';
import type { HomologationReport } from '../../checks/report.js';
import type {
  AccessRequestCreated, AccessRequestStatus, AccessRequestStatusView, AccessRequestView, accessRequestCreate,
} from '../contract/access-requests.js';
import type { CertificateKeySet, CertificateView, RevokedCertificate, RotatedCertificateKey } from '../contract/certificates.js';
import { count, Transport } from './transport.js';
import { ApiError } from './errors.js';
import { normalizeBaseUrl } from './url.js';

// Answers of the control API, written out from the contract's types. They are not inferred from the
// emulator's views (ReturnType<typeof storeView>): the client's declarations would then reach the
// emulator's internals and its database driver, and a package user importing only the client would
// type-check them. test/client/control-types.test.ts keeps each one equal to what its view returns.

/** GET /_emulator/clock */
export interface EmulatorClock {
  now: string;
  mode: ClockMode;
  offset_seconds: number;
}

/** A store as the panel sees it: the API's Store plus environment, suspension and the merchant's switch. */
export type ControlStore = Store & {
  environment: Environment;
  suspended: boolean;
  accepting_switch: boolean;
};

/** An integration as the panel sees it; credentials by key id only. */
export interface ControlIntegration {
  id: string;
  store_id: string;
  environment: Environment;
  system: string;
  status: IntegrationStatus;
  scopes: Scope[];
  settings: IntegrationSettings;
  credentials: { key_id: string; created_at: string; expires_at: string | null; revoked_at: string | null }[];
}

/** An integration's webhook as the panel shows it: never the secret; `notice` once it was paused. */
export type ControlWebhook = Pick<Webhook, 'url' | 'events' | 'active' | 'paused' | 'paused_reason'> & { notice: string | null };

/**
 * GET /_emulator/state (DESIGN): environments, stores with alerts, integrations with their webhook,
 * clock. With a store token, its own environment and store only (`access.role: 'store'`).
 */
export interface EmulatorState {
  clock: EmulatorClock;
  limits: boolean;
  /** Who asked: the admin (or anyone, on an emulator without `--admin-token`), or one store's token. */
  access: { role: 'admin' | 'store'; store_id: string | null };
  environments: {
    name: Environment;
    base_path: string;
    stores: (ControlStore & {
      alerts: StoreAlert[];
      integrations: (ControlIntegration & { webhook: ControlWebhook | null })[];
    })[];
  }[];
}

/** POST /_emulator/stores — 201; the credential and the store token are shown here once. */
export interface CreatedStore {
  store: ControlStore;
  integration: ControlIntegration;
  credential: string;
  /** `mks_…`: opens only this store's control routes and panel on an emulator started with `--admin-token`. */
  store_token: string;
}

/** POST /_emulator/stores/{store_id}/token — a new store token, shown once; the store's previous one stops. */
export interface IssuedStoreToken {
  store_id: string;
  environment: Environment;
  store_token: string;
  created_at: string;
}

/** POST /_emulator/integrations/{id}/credentials — the new credential, shown once. */
export interface RotatedCredential {
  integration_id: string;
  key_id: string;
  credential: string;
  overlap_hours: number;
  /** The other credentials still valid, and until when. */
  previous: { key_id: string; expires_at: string | null }[];
}

/** GET /_emulator/export — the bundle's bytes as served. */
export interface StateBundle {
  bytes: Buffer;
  /** Hex SHA-256 of the bundle's payload, as written inside the bundle (`X-Bundle-SHA256`). */
  sha256: string | null;
  /** The file name the emulator suggests (`merchant-kit-state.json.gz`). */
  filename: string | null;
}

export interface EmulatorControlOptions {
  /**
   * Bearer token of an emulator started with `--admin-token` (not needed on loopback without one):
   * the admin token, or a store token (`mks_…`) that opens only its store's routes.
   */
  adminToken?: string;
  timeoutMs?: number;
  /** Retries after network failures and 429/5xx (default 0: the control API is local). */
  maxRetries?: number;
  dispatcher?: Dispatcher;
  onResponse?: (info: ResponseInfo) => void;
}

/** The full answer of a control call, for `request()`. */
export interface ControlResponse<T> {
  data: T;
  status: number;
  requestId: string | null;
  headers: Record<string, string>;
}

const ENV_SUFFIX = /\/(?:_emulator|sandbox\/v1|v1)\/?$/;

/**
 * Typed client of the emulator's control API under `/_emulator` (DESIGN: control API): the merchant
 * panel, the customer and the sandbox tools. Writes always send `Content-Type: application/json`.
 * Errors reject with the same `ApiError` as MerchantClient.
 */
export class EmulatorControl {
  readonly #adminToken: string | null;
  readonly #transport: Transport;
  /** The emulator's root (`http://127.0.0.1:4010`). */
  readonly url: string;

  /** `rootUrl` is the emulator's root; see `fromBaseUrl` for API base URLs. */
  constructor(rootUrl: string | URL, options: EmulatorControlOptions = {}) {
    this.url = normalizeBaseUrl(rootUrl);
    this.#adminToken = options.adminToken ?? null;
    this.#transport = new Transport({
      baseUrl: `${this.url}/_emulator`,
      authorization: () => (this.#adminToken === null ? null : `Bearer ${this.#adminToken}`),
      maxRetries: count(options.maxRetries, 0),
      timeoutMs: options.timeoutMs,
      userAgent: 'merchant-kit-control',
      dispatcher: options.dispatcher,
      onResponse: options.onResponse,
    });
  }

  /**
   * Accepts the emulator's root, `…/v1`, `…/sandbox/v1` or `…/_emulator`.
   * @example const control = EmulatorControl.fromBaseUrl('http://127.0.0.1:4010/sandbox/v1');
   */
  static fromBaseUrl(url: string | URL, options: EmulatorControlOptions = {}): EmulatorControl {
    return new EmulatorControl(normalizeBaseUrl(url).replace(ENV_SUFFIX, ''), options);
  }

  /** Any control route: `request('GET', '/faults')`. Bodies are JSON; writes always carry the JSON type. */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<ControlResponse<T>> {
    const upper = method.toUpperCase();
    const result = await this.#transport.send({
      endpointId: 'control', method: upper, path, body, alwaysJsonType: upper !== 'GET', idempotencyKey: null,
    });
    return { data: (result.body as { data?: T } | undefined)?.data as T, status: result.status, requestId: result.requestId, headers: result.headers };
  }

  async #data<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.request<T>(method, path, body)).data;
  }

  /** GET /_emulator/health — `{ ok: true }`. */
  health(): Promise<{ ok: boolean }> {
    return this.#data('GET', '/health');
  }

  /** True when `/_emulator/health` answers `{data:{ok:true}}`; false for anything else (a real API, no server). */
  async isEmulator(): Promise<boolean> {
    return (await this.probe()) === 'emulator';
  }

  /**
   * What answers at this address: `emulator` (health ok), `needs_token` (an emulator started with
   * `--admin-token` refused the missing or wrong token with 401), `unreachable` (no HTTP answer at
   * all: nothing listens there, or the network failed — not a sign of a real environment) or
   * `not_emulator` (an answer that is not the emulator's).
   */
  async probe(): Promise<'emulator' | 'needs_token' | 'unreachable' | 'not_emulator'> {
    try {
      return (await this.health())?.ok === true ? 'emulator' : 'not_emulator';
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return 'needs_token';
      return error instanceof ApiError && error.isNetworkError ? 'unreachable' : 'not_emulator';
    }
  }

  /** POST /_emulator/reset — back to the seeded state; clock, faults, chaos and homologation too. */
  reset(): Promise<{ reset: boolean; clock: EmulatorClock }> {
    return this.#data('POST', '/reset');
  }

  /** GET /_emulator/state */
  state(): Promise<EmulatorState> {
    return this.#data('GET', '/state');
  }

  /** POST /_emulator/stores — a new store and integration (all scopes, `erp_managed` unless told). */
  createStore(body: z.input<typeof controlStoreCreate>): Promise<CreatedStore> {
    return this.#data('POST', '/stores', body);
  }

  /** POST /_emulator/stores/{store_id}/token — a new store token (admin only); the previous one stops at once. */
  issueStoreToken(storeId: string): Promise<IssuedStoreToken> {
    return this.#data('POST', `/stores/${enc(storeId)}/token`);
  }

  /** DELETE /_emulator/stores/{store_id}/token — the store's token stops (admin only). */
  revokeStoreToken(storeId: string): Promise<{ store_id: string; revoked: boolean }> {
    return this.#data('DELETE', `/stores/${enc(storeId)}/token`);
  }

  /** PATCH /_emulator/stores/{store_id} — `accepting_orders`, `suspended`, `payment_methods`, `fulfillment_types`. */
  patchStore(storeId: string, body: z.input<typeof controlStorePatch>): Promise<ControlStore> {
    return this.#data('PATCH', `/stores/${enc(storeId)}`, body);
  }

  /** PATCH /_emulator/integrations/{integration_id} — `scopes`, `settings` (merged), `status`. */
  patchIntegration(integrationId: string, body: z.input<typeof controlIntegrationPatch>): Promise<ControlIntegration> {
    return this.#data('PATCH', `/integrations/${enc(integrationId)}`, body);
  }

  /** POST /_emulator/integrations/{id}/credentials — a new credential; the others expire after `overlap_hours`. */
  rotateCredential(integrationId: string, body: z.input<typeof controlCredentialRotate> = {}): Promise<RotatedCredential> {
    return this.#data('POST', `/integrations/${enc(integrationId)}/credentials`, body);
  }

  /** DELETE /_emulator/integrations/{id}/credentials/{key_id} */
  revokeCredential(integrationId: string, keyId: string): Promise<{ integration_id: string; key_id: string; revoked_at: string | null }> {
    return this.#data('DELETE', `/integrations/${enc(integrationId)}/credentials/${enc(keyId)}`);
  }

  /** POST /_emulator/orders — the order simulator: a complete order priced from the catalog (201 Order). */
  simulateOrder(body: z.input<typeof simulateOrderRequest>): Promise<Order> {
    return this.#data('POST', '/orders', body);
  }

  /** GET /_emulator/orders/{order_id} — any order of either environment. */
  order(orderId: string): Promise<Order> {
    return this.#data('GET', `/orders/${enc(orderId)}`);
  }

  /** POST /_emulator/orders/{order_id}/status — a change by `customer`, `store_user` (default) or `system`. */
  setOrderStatus(orderId: string, body: z.input<typeof panelStatusChangeBody>): Promise<Order> {
    return this.#data('POST', `/orders/${enc(orderId)}/status`, body);
  }

  /** PATCH /_emulator/orders/{order_id} — `{ payment_status: 'paid' }`. */
  patchOrder(orderId: string, body: z.input<typeof panelOrderPatch>): Promise<Order> {
    return this.#data('PATCH', `/orders/${enc(orderId)}`, body);
  }

  /** GET /_emulator/clock */
  clock(): Promise<EmulatorClock> {
    return this.#data('GET', '/clock');
  }

  /** POST /_emulator/clock/advance — due retries, expiries and pauses happen. */
  advanceClock(seconds: number): Promise<EmulatorClock> {
    return this.#data('POST', '/clock/advance', { seconds });
  }

  /** POST /_emulator/webhooks/drain — returns once every delivery due now was attempted. */
  drainWebhooks(): Promise<z.output<typeof drainResult>> {
    return this.#data('POST', '/webhooks/drain');
  }

  /** POST /_emulator/faults — the next matching API calls fail as told (`path` is a glob over the full path). */
  addFault(body: z.input<typeof controlFault>): Promise<z.output<typeof controlFault> & Record<string, unknown>> {
    return this.#data('POST', '/faults', body);
  }

  /** GET /_emulator/faults — the faults still armed. */
  faults(): Promise<(z.output<typeof controlFault> & Record<string, unknown>)[]> {
    return this.#data('GET', '/faults');
  }

  /** DELETE /_emulator/faults */
  clearFaults(): Promise<{ cleared: number }> {
    return this.#data('DELETE', '/faults');
  }

  /** POST /_emulator/webhooks/chaos — `duplicate_rate`, `reorder`, `delay_ms` for outbound deliveries. */
  setChaos(body: z.input<typeof webhookChaos>): Promise<WebhookChaos> {
    return this.#data('POST', '/webhooks/chaos', body);
  }

  /** DELETE /_emulator/webhooks/chaos */
  clearChaos(): Promise<WebhookChaos | null> {
    return this.#data('DELETE', '/webhooks/chaos');
  }

  /** PUT /_emulator/integrations/{id}/webhook — the panel sets (201 with the secret on creation) or reactivates it. */
  setWebhook(integrationId: string, body: z.input<typeof webhookPanelInput>): Promise<Webhook> {
    return this.#data('PUT', `/integrations/${enc(integrationId)}/webhook`, body);
  }

  /** POST /_emulator/deliveries/{delivery_id}/retry — the panel's resend. */
  retryDelivery(deliveryId: string): Promise<DeliveryRecord> {
    return this.#data('POST', `/deliveries/${enc(deliveryId)}/retry`);
  }

  /** POST /_emulator/stores/{store_id}/products — a panel product (`external_id: null`). */
  createPanelProduct(storeId: string, body: PanelProductInput): Promise<Product> {
    return this.#data('POST', `/stores/${enc(storeId)}/products`, body);
  }

  /** PATCH /_emulator/products/{product_id} — panel changes and photos. */
  patchPanelProduct(productId: string, body: PanelProductPatch): Promise<Product> {
    return this.#data('PATCH', `/products/${enc(productId)}`, body);
  }

  /**
   * POST /_emulator/homologation/{integration_id}/start — starts an observed homologation session
   * (optional `timeout_seconds`); answers the observer's report as it stands.
   */
  startHomologation(integrationId: string, body: z.input<typeof controlHomologationStart> = {}): Promise<HomologationReport> {
    return this.#data('POST', `/homologation/${enc(integrationId)}/start`, body);
  }

  /** GET /_emulator/homologation/{integration_id} — the report filled from the integration's own calls. */
  homologation(integrationId: string): Promise<HomologationReport> {
    return this.#data('GET', `/homologation/${enc(integrationId)}`);
  }

  /**
   * POST /_emulator/access-requests — asks the operator of a sandbox started with `--access-requests
   * open` for a test store; no token needed. The claim secret (`mkc_…`) is shown here once.
   */
  requestAccess(body: z.input<typeof accessRequestCreate>): Promise<AccessRequestCreated> {
    return this.#data('POST', '/access-requests', body);
  }

  /**
   * GET /_emulator/access-requests/{id} with the request's claim secret (sent for this call only,
   * instead of the client's token). The first read after approval carries the credential and the store
   * token; every later one shows them null.
   */
  async accessRequestStatus(id: string, claimSecret: string): Promise<AccessRequestStatusView> {
    const result = await this.#transport.send({
      endpointId: 'control', method: 'GET', path: `/access-requests/${enc(id)}`, idempotencyKey: null, authorization: () => `Bearer ${claimSecret}`,
    });
    return (result.body as { data: AccessRequestStatusView }).data;
  }

  /** GET /_emulator/access-requests — the operator's list, newest first (admin token). */
  accessRequests(query: { status?: AccessRequestStatus; limit?: number } = {}): Promise<AccessRequestView[]> {
    const params = new URLSearchParams();
    if (query.status) params.set('status', query.status);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    const q = params.toString();
    return this.#data('GET', `/access-requests${q ? `?${q}` : ''}`);
  }

  /** POST /_emulator/access-requests/{id}/approve — makes the integrator's test store and integration (admin token). */
  approveAccessRequest(id: string): Promise<AccessRequestView> {
    return this.#data('POST', `/access-requests/${enc(id)}/approve`);
  }

  /** POST /_emulator/access-requests/{id}/deny — the integrator reads the reason (admin token). */
  denyAccessRequest(id: string, reason: string): Promise<AccessRequestView> {
    return this.#data('POST', `/access-requests/${enc(id)}/deny`, { reason });
  }

  /** GET /_emulator/certificates/keys — the sandbox's public keys, a JWKS (no token needed). */
  async certificateKeys(): Promise<CertificateKeySet> {
    const result = await this.#transport.send({ endpointId: 'control', method: 'GET', path: '/certificates/keys', idempotencyKey: null });
    return result.body as CertificateKeySet;
  }

  /** GET /_emulator/certificates/revoked — the revoked certificates (no token needed). */
  revokedCertificates(): Promise<RevokedCertificate[]> {
    return this.#data('GET', '/certificates/revoked');
  }

  /** GET /_emulator/certificates — the certificates the sandbox issued, newest first (admin token). */
  certificates(limit?: number): Promise<CertificateView[]> {
    return this.#data('GET', `/certificates${limit === undefined ? '' : `?limit=${limit}`}`);
  }

  /** POST /_emulator/certificates/{id}/revoke — verification says "revoked" from now on (admin token). */
  revokeCertificate(id: string): Promise<CertificateView> {
    return this.#data('POST', `/certificates/${enc(id)}/revoke`);
  }

  /** POST /_emulator/certificates/rotate-key — a new signing key; what the others signed stays verifiable (admin token). */
  rotateCertificateKey(): Promise<RotatedCertificateKey> {
    return this.#data('POST', '/certificates/rotate-key');
  }

  /**
   * GET /_emulator/export — the whole state as a versioned bundle (gzip JSON; what `emulator export`
   * writes and `emulator start --from` reads), with the checksum of its payload (`X-Bundle-SHA256`).
   */
  async exportState(): Promise<StateBundle> {
    const result = await this.#transport.send({ endpointId: 'control', method: 'GET', path: '/export', idempotencyKey: null, raw: true });
    const filename = /filename="([^"]+)"/.exec(result.headers['content-disposition'] ?? '')?.[1] ?? null;
    return { bytes: result.body as Buffer, sha256: result.headers['x-bundle-sha256'] ?? null, filename };
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Never the admin token. */
  toJSON(): { url: string; adminToken: string | null } {
    return { url: this.url, adminToken: this.#adminToken === null ? null : '[redacted]' };
  }

  [inspect.custom](): string {
    return `EmulatorControl ${inspect(this.toJSON())}`;
  }
}

function enc(segment: string): string {
  if (segment === '') throw new TypeError('Empty path segment');
  return encodeURIComponent(segment);
}
