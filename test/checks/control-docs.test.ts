import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// docs/emulator.md's control API table lists every route of the observed homologation, with the
// fields its body takes (read from the route file, so a new route or field without a row fails).
const routes = [...readFileSync(join(ROOT, 'emulator', 'control', 'homologation.ts'), 'utf8').matchAll(/app\.(get|post|put|patch|delete)(?:<\w+>)?\('([^']+)'/g)].map(
  ([, method, path]) => ({ method: method!.toUpperCase(), path: `/_emulator${path!.replace(/:(\w+)/g, '{$1}')}` }),
);
const rows = readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8').split('\n').filter((l) => l.startsWith('| '));

describe('docs/emulator.md control table: /_emulator/homologation', () => {
  it('reads the three routes from the route file', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /_emulator/homologation/{integration_id}',
      'POST /_emulator/homologation/recorder',
      'POST /_emulator/homologation/{integration_id}/start',
    ]);
  });

  it.each(routes)('has a row for $method $path', ({ method, path }) => {
    expect(rows.some((r) => r.split('|')[1]!.includes(method) && r.includes(`\`${path}\``))).toBe(true);
  });

  it.each([
    ['/_emulator/homologation/{integration_id}/start', 'timeout_seconds'],
    ['/_emulator/homologation/recorder', 'enabled'],
  ])('names the body field of %s: %s', (path, field) => {
    expect(rows.find((r) => r.includes(`\`${path}\``))?.split('|')[3]).toContain(`\`${field}\``);
  });
});
