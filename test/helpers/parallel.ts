/**
 * `fn` over every item, at most `limit` at a time, the results in the items' order: for checks that
 * are independent of each other (CLI processes that touch no shared state), so that a test waits for
 * the slowest few rather than for the sum of them all.
 */
export async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, limit = 4): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
