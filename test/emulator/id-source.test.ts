import { describe, expect, it } from 'vitest';
import { IdSource } from '../../emulator/id-source.js';
import { IdFactory } from '../../src/contract/ids.js';
import { seededRandom } from '../../src/contract/random.js';

// DESIGN: ids never repeat across the processes or restarts of one sandbox, `--seed` included
// (issue 24). The first start of a sandbox keeps the seeded ids; any other salts them.

const ids = (source: IdSource, n: number) => {
  const factory = new IdFactory(() => 1_700_000_000_000, source);
  return Array.from({ length: n }, () => factory.next('store'));
};

describe('IdSource', () => {
  it('gives the seeded stream\'s ids until salted: the same seed, the same ids', () => {
    expect(ids(new IdSource(seededRandom(7)), 5)).toEqual(ids(new IdSource(seededRandom(7)), 5));
  });

  it('gives other ids once salted, at the same instant and with the same seed', () => {
    const plain = ids(new IdSource(seededRandom(7)), 50);
    const salted = new IdSource(seededRandom(7));
    salted.salt();
    const other = ids(salted, 50);
    expect(other.filter((id) => plain.includes(id))).toEqual([]);
  });

  it('draws as much of the seeded stream salted as not, so the choices drawn after an id stay the same', () => {
    const plain = new IdSource(seededRandom(9));
    const salted = new IdSource(seededRandom(9));
    salted.salt();
    ids(plain, 3);
    ids(salted, 3);
    expect([salted.float(), salted.float()]).toEqual([plain.float(), plain.float()]);
  });
});
