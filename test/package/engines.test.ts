import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { installedPackages, satisfies } from '../helpers/package.js';

// issue 10, item 8: `npm install` stays free of EBADENGINE warnings under the Node 20 floor
// (cookie@2, pulled in by fastify, declares Node >= 22; package.json overrides it to 1.1.1).

const floor = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string).replace(/^>=\s*/, '');
/** The Node 20 releases from the project's floor on. */
const NODE_20 = Array.from({ length: 40 }, (_, i) => `20.${i}.0`).filter((v) => satisfies(v, `>=${floor}`));

describe('engines.node of the installed tree (issue 10, item 8)', () => {
  it.each([
    ['20.18.0', '>=18', true],
    ['20.18.0', '>=22', false],
    ['20.18.0', '^20.19.0 || >=22.12.0', false],
    ['20.19.0', '^20.19.0 || >=22.12.0', true],
    ['20.18.0', '>= 14.17.0', true],
    ['20.18.0', '14 || 16 || >=18', true],
    ['20.18.0', '18.x', false],
    ['20.18.0', '20.x', true],
    ['20.18.0', '^18.0.0', false],
    ['20.18.0', '~20.18', true],
    ['20.18.0', '>=12.22.0 <13 || >=14.17', true],
    ['20.18.0', '14 - 20', true],
    ['20.18.0', '*', true],
    ['20.18.0', '', true],
    ['20.18.0', '<20', false],
    ['20.18.0', '>20', false],
    ['20.18.0', '>=20.18.1', false],
  ])('satisfies(%s, %j) is %s', (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });

  // A package may ask for a later Node 20 than the floor (undici 7: >=20.18.1; vite 8: ^20.19.0), not
  // for Node 22 only: that is what warned on install (cookie@2: >=22).
  it('has no package whose engines.node excludes Node 20', () => {
    const packages = installedPackages(join(ROOT, 'node_modules'));
    expect(packages.length).toBeGreaterThan(100);
    const excluding = packages
      .filter((p) => typeof p.engines?.node === 'string' && !NODE_20.some((v) => satisfies(v, p.engines!.node!)))
      .map((p) => `${p.name}@${p.version} (engines.node ${p.engines!.node})`);
    expect(excluding).toEqual([]);
    expect(NODE_20[0]).toBe(floor.split('.').length === 2 ? `${floor}.0` : floor);
  });

  it('would catch a package for Node 22 only', () => {
    expect(NODE_20.some((v) => satisfies(v, '>=22'))).toBe(false);
    expect(NODE_20.some((v) => satisfies(v, '^20.19.0 || >=22.12.0'))).toBe(true);
  });

  it('keeps cookie at a version for Node 20 through the override', () => {
    const cookies = installedPackages(join(ROOT, 'node_modules')).filter((p) => p.name === 'cookie');
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) expect(NODE_20.some((v) => satisfies(v, c.engines?.node ?? '*')), `cookie@${c.version}`).toBe(true);
  });
});
