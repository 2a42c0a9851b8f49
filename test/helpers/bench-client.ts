import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './cli.js';

/** A module of the benchmarks' own (bench/lib/<name>), as the benches import it. */
export const benchLib = (name: string): Promise<any> => import(pathToFileURL(join(ROOT, 'bench', 'lib', name)).href);

/**
 * Runs `use` with the mixed bench's client on `url` (its own HTTP/1.1 origin, `connections` of them,
 * `exchange` and the list-page reader), and closes the origin afterwards, whatever happened.
 */
export async function withBenchClient<T>(
  url: string,
  use: (client: { origin: any; exchange: any; ListPageReader: any }) => Promise<T>,
  options: { connections?: number; answerTimeoutMs?: number } = {},
): Promise<T> {
  const { Origin } = await benchLib('http1.mjs');
  const { exchange } = await benchLib('mixed-workload.mjs');
  const { ListPageReader } = await benchLib('list-page.mjs');
  const origin = new Origin(url, { connections: 2, ...options });
  try {
    return await use({ origin, exchange, ListPageReader });
  } finally {
    await origin.close();
  }
}
