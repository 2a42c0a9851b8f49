import type { Category, Product } from '../../src/contract/catalog.js';
import { formatAmount } from '../../src/contract/amounts.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { EnvContext } from '../context.js';
import { ChangeCache } from '../store/sqlite/change-cache.js';
import type { Db } from '../store/sqlite/open.js';
import { rowWatch } from '../store/sqlite/row-watch.js';
import type { Statement } from 'better-sqlite3';
import type { CategoryRow, OptionGroupRow, OptionRow, ProductPageParams, ProductView } from '../data/catalog.js';

export function presentCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    external_id: row.external_id,
    name: row.name,
    position: row.position,
    active: row.active === 1,
    source_updated_at: formatNullableDate(row.source_updated_at),
    created_at: formatDate(row.created_at),
    updated_at: formatDate(row.updated_at),
  };
}

/** Products with their option groups: one query for the groups and one for the options of the whole list. */
export function presentProducts(env: EnvContext, rows: ProductView[]): Product[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const groups = groupBy(env.catalog.groupsOfProducts.all({ ids }), (g) => g.product_id);
  const options = groupBy(env.catalog.optionsOfProducts.all({ ids }), (o) => o.group_id);
  return rows.map((row) => presentProductRow(row, groups.get(row.id) ?? [], options));
}

/**
 * A product's text around the parts formatted in JS (price, option groups, dates): SQLite's
 * json_object writes the strings and nulls (its escaping is JSON.stringify's, see
 * perf.product-text.test.ts), so a row comes back as two strings instead of twenty values — reading
 * the rows as objects cost more than everything else of an uncached page.
 */
const TEXT_COLUMNS = `p.id, p.rowid, p.price, p.source_updated_at, p.created_at, p.updated_at,
    json_object('id', p.id, 'external_id', p.external_id, 'category_external_id', c.external_id, 'category_id', p.category_id,
      'name', p.name) AS head,
    json_object('description', p.description, 'sku', p.sku, 'active', json(iif(p.active = 1, 'true', 'false')),
      'available', json(iif(p.available = 1, 'true', 'false')), 'position', p.position, 'image_url', p.photo_url,
      'image', json_object('status', p.image_status, 'source', p.photo_source, 'requested_url', p.image_requested_url, 'error', p.image_error)) AS middle
  FROM products p JOIN categories c ON c.id = p.category_id`;

type TextRow = [id: string, rowid: number, price: number, sourceUpdatedAt: number | null, createdAt: number, updatedAt: number, head: string, middle: string];

interface TextStatements {
  byRowids: Statement<[{ rowids: string }], TextRow>;
  /**
   * The page's products (its filters, id order and limit) as their rowids, from the
   * products_page index alone (migration 0006): integers cost SQLite and V8 a fraction of what the
   * ids' text does, and the kept texts are found by rowid. No join with categories: every
   * product's category exists (foreign keys are on, and a restore checks every reference).
   */
  page: Statement<[ProductPageParams], number>;
}

const textStatements = new WeakMap<Db, TextStatements>();

function statementsOf(db: Db): TextStatements {
  let statements = textStatements.get(db);
  if (!statements) {
    statements = {
      byRowids: db.prepare<[{ rowids: string }], TextRow>(`SELECT ${TEXT_COLUMNS} WHERE p.rowid IN (SELECT value FROM json_each(@rowids))`).raw(true),
      page: db
        .prepare<[ProductPageParams], number>(
          `SELECT p.rowid FROM products p
           WHERE p.store_id = @store_id AND p.updated_at >= @since AND p.id > @after
             AND (@category_id IS NULL OR p.category_id = @category_id) AND (@active IS NULL OR p.active = @active)
           ORDER BY p.id LIMIT @limit`,
        )
        .pluck(),
    };
    textStatements.set(db, statements);
  }
  return statements;
}

/** A product as the page shows it: its id and its JSON text's UTF-8 bytes, byte for byte `JSON.stringify` of `presentProducts`. */
export interface ProductText {
  id: string;
  bytes: Buffer;
}

/**
 * One page of GET /catalog/products: up to `params.limit` products in id order. The page's query
 * runs every time; a product's text is written again only when a write touched it since it was
 * last written (KeptTexts), so a write re-renders what it changed, not the page.
 */
export function productPageEntries(env: EnvContext, params: ProductPageParams): ProductText[] {
  const rowids = statementsOf(env.db).page.all(params);
  const kept = keptTextsOf(env.db);
  let missing: number[] | undefined;
  for (const rowid of rowids) if (kept.get(rowid) === undefined) (missing ??= []).push(rowid);
  let fresh: Map<number, ProductText> | undefined;
  if (missing) {
    fresh = new Map();
    const rows = statementsOf(env.db).byRowids.all({ rowids: JSON.stringify(missing) });
    const texts = textsOf(env, rows);
    for (const row of rows) fresh.set(row[1], { id: row[0], bytes: Buffer.from(texts.get(row[0])!, 'utf8') });
    // A text written inside a transaction may belong to writes that are then rolled back.
    if (!env.db.inTransaction) kept.setMany(fresh);
  }
  const entries: ProductText[] = [];
  for (const rowid of rowids) {
    const entry = fresh?.get(rowid) ?? kept.get(rowid);
    if (entry) entries.push(entry);
  }
  return entries;
}

function textsOf(env: EnvContext, rows: TextRow[]): Map<string, string> {
  const texts = new Map<string, string>();
  if (rows.length === 0) return texts;
  const json = JSON.stringify(rows.map((r) => r[0]));
  const groups = groupBy(env.catalog.groupsOfProducts.all({ ids: json }), (g) => g.product_id);
  const options = groups.size ? groupBy(env.catalog.optionsOfProducts.all({ ids: json }), (o) => o.group_id) : new Map<string, OptionRow[]>();
  for (const [id, , price, sourceUpdatedAt, createdAt, updatedAt, head, middle] of rows) {
    const source = sourceUpdatedAt === null ? 'null' : `"${formatDate(sourceUpdatedAt)}"`;
    texts.set(
      id,
      `${head.slice(0, -1)},"price":"${formatAmount(price)}",${middle.slice(1, -1)},"option_groups":${JSON.stringify(presentGroups(groups.get(id) ?? [], options))}` +
        `,"source_updated_at":${source},"created_at":"${formatDate(createdAt)}","updated_at":"${formatDate(updatedAt)}"}`,
    );
  }
  return texts;
}

/** About 32 MB of kept product texts at most; past that, all are dropped and written again as read. */
const MAX_KEPT_BYTES = 32 * 1024 * 1024;

/**
 * Each product's text by rowid, kept until SQLite reports a write to the product, its option
 * groups or options, or its category's external id (db/row-watch.ts); a deleted product is
 * forgotten with its rowid, so a rowid used again never finds an old text.
 */
class KeptTexts {
  private readonly entries = new Map<number, ProductText>();
  private bytes = 0;

  get(rowid: number): ProductText | undefined {
    return this.entries.get(rowid);
  }

  setMany(fresh: Map<number, ProductText>): void {
    for (const [rowid, entry] of fresh) {
      this.forget(rowid);
      if (this.bytes + entry.bytes.length > MAX_KEPT_BYTES) this.clear();
      this.entries.set(rowid, entry);
      this.bytes += entry.bytes.length;
    }
  }

  forget(rowid: number): void {
    const entry = this.entries.get(rowid);
    if (!entry) return;
    this.entries.delete(rowid);
    this.bytes -= entry.bytes.length;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

const keptTexts = new WeakMap<Db, KeptTexts>();

function keptTextsOf(db: Db): KeptTexts {
  let kept = keptTexts.get(db);
  if (!kept) {
    const created = new KeptTexts();
    rowWatch(db).onProductChange((rowid) => (rowid === null ? created.clear() : created.forget(rowid)));
    keptTexts.set(db, (kept = created));
  }
  return kept;
}

const pageBodies = new WeakMap<Db, ChangeCache<Buffer>>();
/** Pages are ~25 KB each: a few hundred kept at most. */
const MAX_PAGES = 256;

/**
 * A whole page of GET /catalog/products as the body's bytes, kept until the environment's database
 * changes (see ChangeCache), so re-reading an unchanged catalog costs neither the page's query nor
 * joining the products' texts. A page is kept once it is read twice between writes: one read after
 * each write (a sync reading pages between batches) would only keep ~25 KB to drop at the next write. `key` must name every input of the page: the integration and store
 * the credential belongs to and every query parameter (a page is never shared across integrations).
 */
export function productPageBody(env: EnvContext, key: string, compute: () => Buffer): Buffer {
  let cache = pageBodies.get(env.db);
  if (!cache) pageBodies.set(env.db, (cache = new ChangeCache(env.db, MAX_PAGES, true)));
  return cache.get(key) ?? cache.set(key, compute());
}

/** One product by id (any store), or undefined. */
export function presentProduct(env: EnvContext, productId: string): Product | undefined {
  const row = env.catalog.productViewById.get(productId);
  return row ? presentProducts(env, [row])[0] : undefined;
}

function presentProductRow(row: ProductView, groups: OptionGroupRow[], options: Map<string, OptionRow[]>): Product {
  return {
    id: row.id,
    external_id: row.external_id,
    category_external_id: row.category_external_id,
    category_id: row.category_id,
    name: row.name,
    price: formatAmount(row.price),
    description: row.description,
    sku: row.sku,
    active: row.active === 1,
    available: row.available === 1,
    position: row.position,
    image_url: row.photo_url,
    image: { status: row.image_status, source: row.photo_source, requested_url: row.image_requested_url, error: row.image_error },
    option_groups: presentGroups(groups, options),
    source_updated_at: formatNullableDate(row.source_updated_at),
    created_at: formatDate(row.created_at),
    updated_at: formatDate(row.updated_at),
  };
}

function presentGroups(groups: OptionGroupRow[], options: Map<string, OptionRow[]>): Product['option_groups'] {
  return groups.map((g) => ({
    id: g.id,
    external_id: g.external_id,
    name: g.name,
    min_select: g.min_select,
    max_select: g.max_select,
    options: (options.get(g.id) ?? []).map((o) => ({
      id: o.id, external_id: o.external_id, name: o.name, price: formatAmount(o.price), available: o.available === 1,
    })),
  }));
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}
