import { formatAmount } from '../../../src/contract/amounts.js';
import { formatDate } from '../../../src/contract/dates.js';
import type { OptionGroupRecord, OptionRecord, ProductPageArgs } from '../../catalog/repository.js';
import { groupBy, presentGroups } from '../../catalog/present.js';
import { page } from '../../catalog/cursor.js';
import { ChangeCache } from './change-cache.js';
import type { Db } from './open.js';
import { rowWatch } from './row-watch.js';
import { prepareLazily } from './lazy-statement.js';

// GET /catalog/products on SQLite, its hot path (issue 10): each product's JSON text kept by rowid
// until SQLite reports a write to it (row-watch.ts), the page's rows read as integer rowids from a
// covering index, and whole page bodies kept until the database changes. The bytes are those of
// `JSON.stringify` of the catalog's presenter (test/emulator/adapters/sqlite/product-page.test.ts).

/**
 * A product's text around the parts formatted in JS (price, option groups, dates): SQLite's
 * json_object writes the strings and nulls (its escaping is JSON.stringify's), so a row comes back
 * as two strings instead of twenty values — reading the rows as objects cost more than everything
 * else of an uncached page.
 */
const TEXT_COLUMNS = `p.id, p.rowid, p.price, p.source_updated_at, p.created_at, p.updated_at,
    json_object('id', p.id, 'external_id', p.external_id, 'category_external_id', c.external_id, 'category_id', p.category_id,
      'name', p.name) AS head,
    json_object('description', p.description, 'sku', p.sku, 'active', json(iif(p.active = 1, 'true', 'false')),
      'available', json(iif(p.available = 1, 'true', 'false')), 'position', p.position, 'image_url', p.photo_url,
      'image', json_object('status', p.image_status, 'source', p.photo_source, 'requested_url', p.image_requested_url, 'error', p.image_error)) AS middle
  FROM products p JOIN categories c ON c.id = p.category_id`;

type TextRow = [id: string, rowid: number, price: number, sourceUpdatedAt: number | null, createdAt: number, updatedAt: number, head: string, middle: string];

interface PageQuery {
  store_id: string;
  since: number;
  after: string;
  limit: number;
  category_id: string | null;
  active: number | null;
}

/** A product as the page shows it: its id and its JSON text's UTF-8 bytes. */
export interface ProductText {
  id: string;
  bytes: Buffer;
}

const EMPTY_PAGE = Buffer.from('{"data":[],"next_cursor":null}');
const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
/** Pages are ~25 KB each: a few hundred kept at most. */
const MAX_PAGES = 256;

/** The products page of one database: `(args) => body bytes`. */
export function productPageReader(db: Db): (args: ProductPageArgs) => Buffer {
  const byRowids = prepareLazily<[{ rowids: string }], TextRow>(db, `SELECT ${TEXT_COLUMNS} WHERE p.rowid IN (SELECT value FROM json_each(@rowids))`).raw(true);
  /**
   * The page's products (its filters, id order and limit) as their rowids, from the products_page
   * index alone (migration 0006): integers cost SQLite and V8 a fraction of what the ids' text does,
   * and the kept texts are found by rowid. No join with categories: every product's category exists
   * (foreign keys are on, and a restore checks every reference).
   */
  const pageRowids = db
    .prepare<[PageQuery], number>(
      `SELECT p.rowid FROM products p
       WHERE p.store_id = @store_id AND p.updated_at >= @since AND p.id > @after
         AND (@category_id IS NULL OR p.category_id = @category_id) AND (@active IS NULL OR p.active = @active)
       ORDER BY p.id LIMIT @limit`,
    )
    .pluck();
  const categoryId = prepareLazily<[string, string], string>(db, 'SELECT id FROM categories WHERE integration_id = ? AND external_id = ?').pluck();
  const groupsOf = prepareLazily<{ ids: string }, Record<string, unknown>>(db,
    `SELECT id, product_id AS productId, integration_id AS integrationId, external_id AS externalId, name, min_select AS minSelect,
       max_select AS maxSelect, position FROM option_groups WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id`,
  );
  const optionsOf = prepareLazily<{ ids: string }, Record<string, unknown>>(db,
    `SELECT id, group_id AS groupId, product_id AS productId, integration_id AS integrationId, external_id AS externalId, name, price,
       available = 1 AS available, position FROM options WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id`,
  );
  const kept = new KeptTexts();
  rowWatch(db).onProductChange((rowid) => (rowid === null ? kept.clear() : kept.forget(rowid)));
  const bodies = new ChangeCache<Buffer>(db, MAX_PAGES, true);

  function texts(rows: TextRow[]): Map<string, string> {
    const out = new Map<string, string>();
    if (rows.length === 0) return out;
    const ids = JSON.stringify(rows.map((r) => r[0]));
    const groups = groupBy(groupsOf.all({ ids }) as unknown as OptionGroupRecord[], (g) => g.productId);
    const options = groups.size
      ? groupBy((optionsOf.all({ ids }) as unknown as OptionRecord[]).map((o) => ({ ...o, available: Boolean(o.available) })), (o) => o.groupId)
      : new Map<string, OptionRecord[]>();
    for (const [id, , price, sourceUpdatedAt, createdAt, updatedAt, head, middle] of rows) {
      const source = sourceUpdatedAt === null ? 'null' : `"${formatDate(sourceUpdatedAt)}"`;
      out.set(
        id,
        `${head.slice(0, -1)},"price":"${formatAmount(price)}",${middle.slice(1, -1)},"option_groups":${JSON.stringify(presentGroups(groups.get(id) ?? [], options))}` +
          `,"source_updated_at":${source},"created_at":"${formatDate(createdAt)}","updated_at":"${formatDate(updatedAt)}"}`,
      );
    }
    return out;
  }

  /** The page's products in id order; a text is written again only when a write touched its product. */
  function entries(query: PageQuery): ProductText[] {
    const rowids = pageRowids.all(query);
    let missing: number[] | undefined;
    for (const rowid of rowids) if (kept.get(rowid) === undefined) (missing ??= []).push(rowid);
    let fresh: Map<number, ProductText> | undefined;
    if (missing) {
      fresh = new Map();
      const rows = byRowids.all({ rowids: JSON.stringify(missing) });
      const written = texts(rows);
      for (const row of rows) fresh.set(row[1], { id: row[0], bytes: Buffer.from(written.get(row[0])!, 'utf8') });
      // A text written inside a transaction may belong to writes that are then rolled back.
      if (!db.inTransaction) kept.setMany(fresh);
    }
    const out: ProductText[] = [];
    for (const rowid of rowids) {
      const entry = fresh?.get(rowid) ?? kept.get(rowid);
      if (entry) out.push(entry);
    }
    return out;
  }

  function body(args: ProductPageArgs): Buffer {
    let category: string | null = null;
    if (args.categoryExternalId !== null) {
      const found = categoryId.get(args.integrationId, args.categoryExternalId);
      // An unknown category filters everything out, as a filter does.
      if (found === undefined) return EMPTY_PAGE;
      category = found;
    }
    const list = entries({
      store_id: args.storeId, since: args.since, after: args.after, limit: args.limit + 1, category_id: category,
      active: args.active === null ? null : Number(args.active),
    });
    const cut = page(list, args.limit);
    const parts: Buffer[] = [DATA_OPEN];
    cut.rows.forEach((entry, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(entry.bytes);
    });
    parts.push(Buffer.from(`],"next_cursor":${JSON.stringify(cut.next_cursor)}}`));
    return Buffer.concat(parts);
  }

  return (args) => {
    // A page's body is kept until the database changes (ChangeCache), under every input of it: a
    // page is never shared across integrations.
    const key = JSON.stringify([args.integrationId, args.storeId, args.limit, args.after, args.categoryExternalId, args.since, args.active]);
    return bodies.get(key) ?? bodies.set(key, body(args));
  };
}

/** About 32 MB of kept product texts at most; past that, all are dropped and written again as read. */
const MAX_KEPT_BYTES = 32 * 1024 * 1024;

/**
 * Each product's text by rowid, kept until SQLite reports a write to the product, its option
 * groups or options, or its category's external id (row-watch.ts); a deleted product is forgotten
 * with its rowid, so a rowid used again never finds an old text.
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

