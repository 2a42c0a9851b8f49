import type { ItemKind, LinkedItem, SnapshotStatus } from './snapshot.js';

export type { LinkedItem };

// The catalog aggregate's records and repositories: categories, products, option groups, options,
// and the full snapshots' bookkeeping. The adapters in emulator/store/* implement them.

export interface CategoryRecord {
  id: string;
  storeId: string;
  /** The integration whose code it carries; null for the panel's own categories. */
  integrationId: string | null;
  externalId: string | null;
  name: string;
  position: number | null;
  active: boolean;
  sourceUpdatedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type ImageStatus = 'none' | 'pending' | 'ready' | 'rejected';
export type PhotoSource = 'integration' | 'panel';

/** What a product's photo is: the one in use, who set it, and the integration's last request. */
export interface ImageState {
  /** The photo in use (its source address), whoever set it. */
  photoUrl: string | null;
  photoSource: PhotoSource | null;
  imageStatus: ImageStatus;
  /** The last `image_url` the integration sent. */
  imageRequestedUrl: string | null;
  imageError: string | null;
}

export interface ProductRecord extends ImageState {
  id: string;
  storeId: string;
  integrationId: string | null;
  externalId: string | null;
  categoryId: string;
  name: string;
  /** Hundredths of PYG. */
  price: number;
  description: string | null;
  sku: string | null;
  active: boolean;
  available: boolean;
  position: number | null;
  sourceUpdatedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A product with its category's code, as lists and presenters read it. */
export interface ProductView extends ProductRecord {
  categoryExternalId: string | null;
}

export interface OptionGroupRecord {
  id: string;
  productId: string;
  integrationId: string | null;
  externalId: string | null;
  name: string;
  minSelect: number;
  maxSelect: number;
  position: number;
}

export interface OptionRecord {
  id: string;
  groupId: string;
  productId: string;
  integrationId: string | null;
  externalId: string | null;
  name: string;
  /** Hundredths of PYG. */
  price: number;
  available: boolean;
  position: number;
}

/** One page of a list ordered by id: rows after `after` ('' for the first page). */
export interface CategoryPageArgs {
  storeId: string;
  since: number;
  after: string;
  limit: number;
}

/** GET /catalog/products: every input of one page (the answer is the whole body). */
export interface ProductPageArgs {
  integrationId: string;
  storeId: string;
  since: number;
  /** The id after which the page starts ('' for the first). */
  after: string;
  limit: number;
  /** The integration's category code to filter by; an unknown one gives an empty page. */
  categoryExternalId: string | null;
  active: boolean | null;
}

/** A product with its option groups and options. */
export interface ProductWithOptions {
  product: ProductRecord;
  groups: OptionGroupRecord[];
  options: OptionRecord[];
}

/** Products with their groups and options, in the order of `productIds` (one read where the adapter has it). */
export async function productsWithOptions(catalog: CatalogRepository, productIds: readonly string[]): Promise<ProductWithOptions[]> {
  let found: ProductWithOptions[];
  if (catalog.productsWithOptions) found = await catalog.productsWithOptions(productIds);
  else {
    const products: ProductRecord[] = [];
    for (const id of productIds) {
      const product = await catalog.productById(id);
      if (product) products.push(product);
    }
    const ids = products.map((p) => p.id);
    const [groups, options] = [await catalog.groupsOfProducts(ids), await catalog.optionsOfProducts(ids)];
    found = products.map((product) => ({
      product, groups: groups.filter((g) => g.productId === product.id), options: options.filter((o) => o.productId === product.id),
    }));
  }
  const byId = new Map(found.map((f) => [f.product.id, f]));
  return productIds.flatMap((id) => byId.get(id) ?? []);
}

export interface CatalogRepository {
  categoryByExternal(integrationId: string, externalId: string): Promise<CategoryRecord | undefined>;
  categoryById(id: string): Promise<CategoryRecord | undefined>;
  /** The store's category of that name (an active one first). */
  categoryByName(storeId: string, name: string): Promise<CategoryRecord | undefined>;
  insertCategory(category: CategoryRecord): Promise<void>;
  updateCategory(change: Pick<CategoryRecord, 'id' | 'name' | 'position' | 'active' | 'sourceUpdatedAt' | 'updatedAt'>): Promise<void>;
  setCategorySourceUpdatedAt(id: string, at: number): Promise<void>;
  listCategories(args: CategoryPageArgs): Promise<CategoryRecord[]>;
  activeProductsInCategory(categoryId: string): Promise<number>;
  /** The integration's categories with a code, active or not, by id. */
  linkedCategories(integrationId: string): Promise<LinkedItem[]>;

  productByExternal(integrationId: string, externalId: string): Promise<ProductRecord | undefined>;
  productById(id: string): Promise<ProductRecord | undefined>;
  productViewById(id: string): Promise<ProductView | undefined>;
  insertProduct(product: ProductRecord): Promise<void>;
  updateProduct(product: Omit<ProductRecord, 'storeId' | 'createdAt'>): Promise<void>;
  setProductSourceUpdatedAt(id: string, at: number): Promise<void>;
  /** The integration's products with a code, active or not, by id. */
  linkedProducts(integrationId: string): Promise<LinkedItem[]>;
  /** Moves `updated_at` (the product's text changed through a child row). */
  touchProduct(id: string, at: number): Promise<void>;
  setImage(id: string, image: ImageState, updatedAt: number): Promise<void>;
  /**
   * GET /catalog/products's whole body: `{"data":[product…],"next_cursor":…}` as bytes, byte for byte
   * `JSON.stringify` of the catalog's presenter (an adapter may keep texts between writes).
   */
  productPage(args: ProductPageArgs): Promise<Buffer>;
  /** The integration's first published product (by time, then insertion) still active and available. */
  firstPublishedProduct(storeId: string, integrationId: string): Promise<{ externalId: string; name: string } | undefined>;
  /**
   * A product with a code that needs no option, active and available in an active category (the
   * integration's own first): what the homologation session's orders carry.
   */
  importableProduct(storeId: string, integrationId: string): Promise<string | undefined>;

  groupsOfProducts(productIds: readonly string[]): Promise<OptionGroupRecord[]>;
  optionsOfProducts(productIds: readonly string[]): Promise<OptionRecord[]>;
  /**
   * The products of those ids (in no order; none for an id not found) each with its groups and
   * options in `groupsOfProducts`' and `optionsOfProducts`' order: a server database reads them in one
   * statement (issue 25: the simulator's cart); left out, `productsWithOptions` reads kind by kind.
   * Read-only: a server database hands the same kept records to every reader while the store's
   * catalog is unchanged.
   */
  productsWithOptions?(productIds: readonly string[]): Promise<ProductWithOptions[]>;
  groupByExternal(integrationId: string, externalId: string): Promise<OptionGroupRecord | undefined>;
  optionByExternal(integrationId: string, externalId: string): Promise<OptionRecord | undefined>;
  optionById(id: string): Promise<OptionRecord | undefined>;
  insertGroup(group: OptionGroupRecord): Promise<void>;
  updateGroup(change: Pick<OptionGroupRecord, 'id' | 'name' | 'minSelect' | 'maxSelect' | 'position'>): Promise<void>;
  deleteGroup(id: string): Promise<void>;
  insertOption(option: OptionRecord): Promise<void>;
  updateOption(change: Pick<OptionRecord, 'id' | 'groupId' | 'name' | 'price' | 'available' | 'position'>): Promise<void>;
  patchOption(change: Pick<OptionRecord, 'id' | 'price' | 'available'>): Promise<void>;
  deleteOption(id: string): Promise<void>;
}

export interface SnapshotRecord {
  integrationId: string;
  snapshotId: string;
  syncRunId: string;
  status: SnapshotStatus;
  /** The last part applied to the end (0 while part 1 has not finished). */
  lastPart: number;
  /** Operations that failed over all parts so far. */
  failed: number;
  deactivated: number;
  reason: string | null;
  startedAt: number;
}

export interface SnapshotKey {
  integrationId: string;
  snapshotId: string;
}

export interface SnapshotsRepository {
  /** With `lock`, held until the transaction ends (a second part of the same snapshot waits). */
  get(key: SnapshotKey, options?: { lock?: boolean }): Promise<SnapshotRecord | undefined>;
  insert(snapshot: Omit<SnapshotRecord, 'deactivated' | 'reason' | 'failed'>): Promise<void>;
  /** Records one finished part: it is the last applied now and its failures add up. */
  finishPart(key: SnapshotKey, part: number, failed: number): Promise<void>;
  close(key: SnapshotKey, status: SnapshotStatus, deactivated: number, reason: string | null): Promise<void>;
  addItems(key: SnapshotKey, items: { kind: ItemKind; externalId: string }[]): Promise<void>;
  items(key: SnapshotKey): Promise<{ kind: ItemKind; externalId: string }[]>;
  /** A finished part's fingerprint and stored response (the batch response `data` as JSON). */
  part(key: SnapshotKey, part: number): Promise<{ fingerprint: string; response: string } | undefined>;
  savePart(key: SnapshotKey, part: number, fingerprint: string, response: string): Promise<void>;
}
