import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, waitForLine } from '../helpers/cli.js';
import { cli, tempConfig } from '../helpers/cli-core.js';

// `emulator start --access-requests open|closed` and `--public-url` (DESIGN: The operator's public
// test environment): the ready line says whether requests are open; access requests without an admin
// token, or a public URL that is not an address, are usage errors (exit 2) before anything starts.

let config: ReturnType<typeof tempConfig>;
beforeAll(async () => {
  await ensureBuilt();
  config = tempConfig();
});
afterAll(() => config?.cleanup());

const ADMIN = 'start-operator-admin-token-largo';

describe.concurrent('emulator start --access-requests and --public-url', () => {
  it('says "open" in the ready line with --access-requests open; the banner names the page', async () => {
    // The two starts share nothing: they run at once (issue 27). "closed" by default: the next test's start.
    const readyAndPage = async (args: readonly string[], expected: 'open' | 'closed') => {
      const p = runCli(['emulator', 'start', '--port', '0', '--memory', '--json', ...args], { ...config.env, MERCHANT_KIT_ADMIN_TOKEN: ADMIN });
      try {
        const ready = JSON.parse(await p.firstLine);
        expect(ready.access_requests).toBe(expected);
        const page = await fetch(`${ready.url}/access`);
        expect(page.status).toBe(expected === 'open' ? 200 : 404);
      } finally {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    };
    const bannerOf = async () => {
      const banner = runCli(['emulator', 'start', '--port', '0', '--memory', '--access-requests', 'open'], { ...config.env, MERCHANT_KIT_ADMIN_TOKEN: ADMIN });
      try {
        // Until the banner's line is printed (a limit that follows the machine's load, helpers/wait.ts).
        await waitForLine(banner, (line) => /access:\s+requests open at http:\/\/127\.0\.0\.1:\d+\/access/.test(line));
      } finally {
        banner.child.kill('SIGTERM');
        await banner.exited;
      }
    };
    await Promise.all([readyAndPage(['--access-requests', 'open'], 'open'), bannerOf()]);
  });

  it('names --public-url as the issuer of the certificates (the observer\'s report names it as the target too); access requests stay "closed" by default', async () => {
    // Without --access-requests, with an admin token (which opens nothing by itself): issue 27, this
    // start serves both checks.
    const p = runCli(['emulator', 'start', '--port', '0', '--memory', '--json', '--public-url', 'https://sandbox.example.com'], { ...config.env, MERCHANT_KIT_ADMIN_TOKEN: ADMIN });
    try {
      const ready = JSON.parse(await p.firstLine);
      expect(ready.access_requests).toBe('closed');
      expect((await fetch(`${ready.url}/access`)).status).toBe(404);
      const report = (await (await fetch(`${ready.admin_url}/homologation/${ready.stores[0].integration_id}`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as { data: { target: { base_url: string } } };
      expect(report.data.target.base_url).toMatch(/^https:\/\/sandbox\.example\.com\/(sandbox\/)?v1$/);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it.each([
    ['--access-requests open without an admin token', ['--access-requests', 'open'], /--access-requests open requires --admin-token/],
    ['--public-url with a path', ['--public-url', 'https://sandbox.example.com/v1'], /--public-url must be an http\(s\) address without a path/],
    ['--public-url that is not a URL', ['--public-url', 'sandbox'], /--public-url must be an http\(s\) address/],
    ['--access-requests with another value', ['--access-requests', 'maybe'], /argument 'maybe' is invalid/],
  ])('refuses %s with exit 2, starting nothing', async (_name, args, message) => {
    // No admin token: the helper passes no MERCHANT_KIT_* variable of its own (an empty one is itself a usage error).
    const r = await cli(['emulator', 'start', '--port', '0', '--memory', ...args], { env: config.env, timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
