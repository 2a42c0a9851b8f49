/** One page of a cursor list. */
export interface Page<T> {
  data: T[];
  /** Pass as `cursor` to read the next page; null on the last page. */
  nextCursor: string | null;
  status: number;
  requestId: string | null;
}

/** Fetches the page at `cursor` (undefined: the first page). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

/**
 * A cursor list, read lazily: `for await (const item of paginator)` walks every item across pages,
 * `pages()` walks the pages, `first()` reads one page, `all()` collects every item. Nothing is
 * requested until one of them is used; each use starts again from the first page.
 * @example
 * const orders = client.orders.list({ limit: 100 });
 * for await (const page of orders.pages()) save(page.data, page.nextCursor);
 */
export class Paginator<T> implements AsyncIterable<T> {
  readonly #fetch: PageFetcher<T>;
  readonly #startCursor: string | undefined;

  constructor(fetch: PageFetcher<T>, startCursor?: string) {
    this.#fetch = fetch;
    this.#startCursor = startCursor;
  }

  /** Every page in order; stops at `next_cursor: null` (or an empty page, or a cursor seen twice). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.#startCursor;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.#fetch(cursor);
      yield page;
      // The empty-page and repeated-cursor stops guard against a server that never ends the list.
      if (page.nextCursor === null || page.data.length === 0 || seen.has(page.nextCursor)) return;
      seen.add(page.nextCursor);
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first page only (with its `nextCursor` to continue later). */
  first(): Promise<Page<T>> {
    return this.#fetch(this.#startCursor);
  }

  /** Every item of every page, in order. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const page of this.pages()) items.push(...page.data);
    return items;
  }
}
