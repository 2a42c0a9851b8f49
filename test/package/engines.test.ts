import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { installedPackages, satisfies } from '../helpers/package.js';

// issue 10, item 8 and issue 14: `npm install` stays free of EBADENGINE warnings under the Node 20
// floor, here and in a user's project (where this repo's `overrides` do not apply): cookie@2, which
// light-my-request 6.8 (fastify's) asks for, declares Node >= 22, so package.json pins
// light-my-request to 6.6.0 (cookie 1). test/package/pack.test.ts installs the packed package.

const floor = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string).replace(/^>=\s*/, '');
/** The Node 20 releases from the project's floor on. */
const NODE_20 = [floor, ...Array.from({ length: 40 }, (_, i) => `20.${i}.0`).filter((v) => satisfies(v, `>${floor}`))];

interface LockedPackage {
  version: string;
  dev?: boolean;
  optional?: boolean;
  engines?: { node?: string };
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };

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
  });

  it('would catch a package for Node 22 only', () => {
    expect(NODE_20.some((v) => satisfies(v, '>=22'))).toBe(false);
    expect(NODE_20.some((v) => satisfies(v, '^20.19.0 || >=22.12.0'))).toBe(true);
    expect(satisfies(floor, '^20.19.0 || >=22.12.0')).toBe(false);
  });

  // A user's install resolves afresh; what is locked here is what it resolves to today.
  it("locks only runtime dependencies that run on the floor itself (what a user's npm checks)", () => {
    const runtime = Object.entries(lock.packages).filter(([path, p]) => path.startsWith('node_modules/') && !p.dev);
    expect(runtime.length).toBeGreaterThan(50);
    const excluding = runtime
      .filter(([, p]) => typeof p.engines?.node === 'string' && !satisfies(floor, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} (engines.node ${p.engines!.node})`);
    expect(excluding).toEqual([]);
  });

  it('pins light-my-request to a release on cookie 1, and no override stands in for it', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.dependencies['light-my-request']).toBe('6.6.0');
    expect(manifest.overrides?.cookie).toBeUndefined();
    const cookies = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/cookie$/.test(path));
    expect(cookies.length).toBeGreaterThan(0);
    for (const [path, c] of cookies) expect(satisfies(floor, c.engines?.node ?? '*'), `${path}@${c.version}`).toBe(true);
  });
});
