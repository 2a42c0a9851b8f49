import type { CliContext } from '../../context.js';
import { backoffFromEnv } from '../../context.js';
import { ExitError } from '../../errors.js';
import { storeTokenRefusal } from '../emulator/control-call.js';
import type { EmulatorControl, MerchantClient, RetryInfo } from '../../../client/index.js';
import { sleep } from '../../../client/retry.js';
import type { SharedState } from '../../../../checks/context.js';
import type { ReportIntegration } from '../../../../checks/report.js';
import type { Progress } from './progress.js';

/** The reference integrator's own store and integration on an emulator, and the client that uses its credential. */
export interface ReferenceStore {
  client: MerchantClient;
  integration: ReportIntegration;
  note: string;
  /** Why its menu could not be set up (the API refused or failed); null when it was. */
  setupFailure: string | null;
  /** Hides the store when the run ends: suspended, and left out of the panel's store selector. */
  retire(): Promise<void>;
}

/** The reference stores' slugs start so: the panel leaves a suspended one out of its store selector. */
export const REFERENCE_STORE_SLUG = 'merchant-kit-homologation-';

/**
 * Under a manual clock a rate window (429) ends only when the emulator's clock moves, so waiting
 * for `Retry-After` would never do: the run advances the clock by it (POST /_emulator/clock/advance)
 * and says so, then retries after a short real pause. The 429s the run arms on purpose (the retries
 * check's, which judges the real wait) are waited for as usual.
 */
export function clockAwareRetries(control: EmulatorControl, progress: Progress, state: SharedState): Pick<ConstructorParameters<typeof MerchantClient>[0], 'onRetry' | 'sleep'> {
  let pending: RetryInfo | null = null;
  return {
    // The transport calls onRetry and then, in the same tick, sleep: `pending` pairs them.
    onRetry: (info) => void (pending = info),
    async sleep(ms, signal) {
      const info = pending;
      pending = null;
      const path = info?.path.split('?')[0] ?? '';
      if (!info || info.error.status !== 429 || state.armedFaults?.has(path)) return sleep(ms, signal);
      const seconds = Math.max(1, Math.ceil(ms / 1000));
      progress.say(
        `note: ${info.method} ${path} answered 429 (rate limited). The emulator runs a manual clock, so the rate window ends only when its clock moves ` +
          `(merchant-kit emulator clock advance ${seconds}s, or POST /_emulator/clock/advance {"seconds": ${seconds}}): advancing it ${seconds} s and retrying.`,
      );
      await control.advanceClock(seconds);
      return sleep(Math.min(ms, 1000), signal);
    },
  };
}

/**
 * Issue: homologate must not hijack the developer's integration. Against an emulator the run makes
 * a store and integration of its own (POST /_emulator/stores, in the credential's environment) and
 * works only with their credential: the developer's webhook, secret, orders and catalog stay as
 * they were, and an observer of their integration never sees the reference integrator's calls.
 * A minimal menu (a category, a product) lets the simulator take orders when the catalog check is
 * not run (`--only`).
 */
export async function referenceStore(cli: CliContext, control: EmulatorControl, runId: string, progress: Progress, state: SharedState): Promise<ReferenceStore> {
  const { MerchantClient } = await import('../../../client/index.js');
  let created: Awaited<ReturnType<EmulatorControl['createStore']>>;
  try {
    created = await control.createStore({ environment: cli.environment, name: `merchant-kit homologation ${runId}`, slug: `${REFERENCE_STORE_SLUG}${runId}` });
  } catch (error) {
    const { status, code } = error as { status?: unknown; code?: unknown };
    if (status === 403 && code === 'insufficient_scope') throw new ExitError(storeTokenRefusal({ root: cli.adminUrl.replace(/\/_emulator$/, '') }), 1);
    const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
    throw new ExitError(
      `homologate: the emulator refused to make the reference integrator's own store (POST /_emulator/stores): ${why}. ` +
        'An emulator started with --admin-token needs that token (--admin-token or MERCHANT_KIT_ADMIN_TOKEN); a store token cannot make stores.',
      1,
    );
  }
  const manual = (await control.clock()).mode === 'manual';
  const client = new MerchantClient({
    baseUrl: cli.baseUrl,
    credential: created.credential,
    userAgent: 'merchant-kit-homologate',
    backoff: backoffFromEnv(process.env),
    ...(manual ? { ...clockAwareRetries(control, progress, state), retryManualClockLimits: true } : {}),
  });
  const code = `mkh-base-${runId}`;
  let setupFailure: string | null = null;
  try {
    await client.catalog.categories.put(code, { name: 'Homologation base', position: 100000 });
    await client.catalog.products.put(code, { name: 'Homologation base product', category_external_id: code, price: '10000' });
  } catch (error) {
    setupFailure = `the reference integrator's menu could not be set up on its own store: ${setupError(error)}`;
  }
  const { store, integration } = created;
  return {
    client,
    integration: { id: integration.id, store_id: store.id, store_name: store.name },
    note: `merchant-kit's reference integrator ran on a store and integration of its own, made for this run (${store.name}, ${store.id}; ${integration.id}), suspended and left out of the panel's store selector when the run ended; your store, integration, webhook, orders and catalog were not touched. This run shows the checks pass against this emulator; only an observed run (homologate --observe --integration int_…) certifies your ERP.`,
    setupFailure,
    retire: () => control.patchStore(store.id, { suspended: true }).then(() => undefined),
  };
}

/** "PUT /catalog/categories/… answered 503 maintenance (req_…) after 5 attempts": what a failed set-up call met. */
function setupError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { status?: number; code?: string; requestId?: string | null };
  if (typeof e.status !== 'number' || e.status === 0) return e.message;
  return `the API answered ${e.status} ${e.code ?? ''}${e.requestId ? ` (${e.requestId})` : ''}${e.status >= 500 ? ': the emulator failed or was made to fail (POST /_emulator/faults); try again once it answers' : ''}`.replace(/ +/g, ' ');
}
