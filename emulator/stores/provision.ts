import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import { issueCredential, type IssuedCredential } from './credentials.js';
import { integrationSettings, SCOPES, type IntegrationSettings, type Scope } from '../../src/contract/store.js';
import { DEFAULT_PAYMENT_METHODS } from '../../src/contract/payment-methods.js';

export interface NewStore {
  name?: string;
  slug?: string;
  scopes?: Scope[];
  settings?: Partial<IntegrationSettings>;
  system?: string;
  /** The digest of the store's token (`POST /_emulator/stores`), written with the store. */
  tokenDigest?: Buffer;
}

export interface ProvisionedStore {
  storeId: string;
  integrationId: string;
  credential: IssuedCredential;
}

async function uniqueSlug(tx: Tx, wanted: string): Promise<string> {
  let slug = wanted;
  for (let n = 2; await tx.stores.slugTaken(slug); n++) slug = `${wanted}-${n}`;
  return slug;
}

/**
 * A store with one integration and its credential, as the panel makes them. DESIGN: all scopes and
 * `catalog_mode: erp_managed` unless told otherwise, every other setting at the spec's default.
 */
export async function provisionStore(
  env: EnvContext, input: NewStore, fixed?: { storeId: string; integrationId: string; credential: IssuedCredential },
): Promise<ProvisionedStore> {
  return env.store.tx((tx) => provisionStoreIn(tx, env, input, fixed));
}

/** The same, as part of the caller's unit of work (an approved access request makes its store with its decision). */
export async function provisionStoreIn(
  tx: Tx, env: EnvContext, input: NewStore, fixed?: { storeId: string; integrationId: string; credential: IssuedCredential },
): Promise<ProvisionedStore> {
  const storeId = fixed?.storeId ?? env.ids.next('store');
  const integrationId = fixed?.integrationId ?? env.ids.next('integration');
  const credential = fixed?.credential ?? issueCredential(env.name);
  const settings = integrationSettings.parse({ catalog_mode: 'erp_managed', ...input.settings });
  const now = env.clock.now();
  const name = input.name ?? `Tienda ${(await tx.stores.all()).length + 1}`;
  const slugBase = (input.slug ?? name).toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'tienda';
  const slug = await uniqueSlug(tx, slugBase);
  await tx.stores.insert({ id: storeId, slug, name, switchOn: true, paymentMethods: DEFAULT_PAYMENT_METHODS, fulfillmentTypes: ['delivery', 'pickup'] }, now);
  await tx.integrations.insert({ id: integrationId, storeId, system: input.system ?? 'erp', scopes: input.scopes ?? [...SCOPES], settings }, now);
  await tx.credentials.insert(credential.keyId, integrationId, credential.digest, now);
  if (input.tokenDigest) await tx.stores.setToken(storeId, input.tokenDigest, now);
  return { storeId, integrationId, credential };
}
