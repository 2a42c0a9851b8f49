import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { ACK_STATUSES, IMPORT_FAILURE_CODES, ORDER_STATUSES, SIMULATOR_SCENARIOS } from '../../src/contract/orders.js';
import { DELIVERY_STATUSES } from '../../src/contract/webhooks.js';
import { ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS } from '../../src/contract/entregas.js';
import * as cliLists from '../../src/cli/options.js';
import { ApiError } from '../../src/client/index.js';
import { adminUrlFor, checkEnvironmentMatch, credentialEnvironment, parseBaseUrl, readStdinLine, retryReporter } from '../../src/cli/context.js';
import { ExitError, describeError, rememberTarget } from '../../src/cli/errors.js';
import { baseUrlFor, environmentOfPath } from '../../src/contract/base-paths.js';
import { keyFromText, open, seal } from '../../src/cli/config/crypto.js';
import { formatTable } from '../../src/cli/output.js';

// Pure parts of the CLI core, as tables.

describe('parseBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:4010/sandbox/v1/', 'http://127.0.0.1:4010/sandbox/v1'],
    ['http://localhost:4010/v1', 'http://localhost:4010/v1'],
    ['http://[::1]:4010/v1', 'http://[::1]:4010/v1'],
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
  ])('accepts %s as %s', (raw, expected) => expect(parseBaseUrl(raw, '--base-url')).toBe(expected));

  it.each(['http://api.example.com/v1', 'ftp://127.0.0.1/v1', 'not a url', 'https://u:p@api.example.com/v1', 'https://api.example.com/v1?x=1'])(
    'refuses %s with exit 2',
    (raw) => expect(() => parseBaseUrl(raw, '--base-url')).toThrow(expect.objectContaining({ exitCode: 2 })),
  );
});

describe('credentialEnvironment', () => {
  it.each([
    ['svk_test_abc.svs_test_def', 'test'],
    ['svk_live_abc.svs_live_def', 'live'],
  ])('%s is %s', (c, env) => expect(credentialEnvironment(c, 'x')).toBe(env));

  it.each(['svk_test_abc.svs_live_def', 'svk_test_abc', 'Bearer x', 'svk_prod_a.svs_prod_b'])('refuses %s without echoing it', (c) => {
    try {
      credentialEnvironment(c, 'MERCHANT_KIT_CREDENTIAL');
      expect.unreachable();
    } catch (error) {
      expect((error as ExitError).exitCode).toBe(2);
      expect((error as Error).message).not.toContain(c);
    }
  });
});

describe('environment of the base path', () => {
  it.each([
    ['/v1', 'live'],
    ['/sandbox/v1', 'test'],
    ['/api/sandbox/v1/', 'test'],
    ['/', null],
    ['/v2', null],
  ])('%s → %s', (path, env) => expect(environmentOfPath(path)).toBe(env));

  it.each([
    ['http://h:1/v1', 'test', 'http://h:1/sandbox/v1'],
    ['http://h:1/sandbox/v1', 'live', 'http://h:1/v1'],
    ['http://h:1', 'test', 'http://h:1/sandbox/v1'],
    ['https://h/base/v1', 'test', 'https://h/base/sandbox/v1'],
    // issue 27: `…/sandbox` without the version is completed, not `…/sandbox/sandbox/v1`.
    ['http://h:1/sandbox', 'test', 'http://h:1/sandbox/v1'],
    ['http://h:1/sandbox/', 'live', 'http://h:1/v1'],
    ['https://h/base/sandbox', 'test', 'https://h/base/sandbox/v1'],
  ] as const)('baseUrlFor(%s, %s) = %s', (url, env, expected) => expect(baseUrlFor(url, env)).toBe(expected));

  it('refuses a test credential on /v1 with the URL meant, and accepts matching or unknown paths', () => {
    expect(() => checkEnvironmentMatch('http://h:1/v1', 'test')).toThrow(/did you mean http:\/\/h:1\/sandbox\/v1\?/);
    expect(() => checkEnvironmentMatch('http://h:1/sandbox/v1', 'live')).toThrow(/did you mean http:\/\/h:1\/v1\?/);
    expect(() => checkEnvironmentMatch('http://h:1/sandbox/v1', 'test')).not.toThrow();
    expect(() => checkEnvironmentMatch('https://sandbox.example.com/api', 'test')).not.toThrow();
  });

  it.each(['http://h:1/v1', 'http://h:1/sandbox/v1', 'http://h:1/sandbox'])('the control API of %s is at the root', (url) => expect(adminUrlFor(url)).toBe('http://h:1/_emulator'));
});

describe('describeError', () => {
  it('an API error: one line with message, status, code and request id; exit 1', () => {
    rememberTarget(undefined);
    const e = new ApiError({ status: 409, code: 'external_id_conflict', message: 'Conflicto.', requestId: 'req_1' });
    expect(describeError(e)).toMatchObject({ lines: ['error: Conflicto. (409 external_id_conflict, request_id req_1)'], exitCode: 1 });
  });

  it('validation details go on the same line', () => {
    const e = new ApiError({ status: 422, code: 'validation_failed', message: 'Inválido.', details: [{ field: 'external_id', code: 'pattern', message: 'Formato.' }] });
    expect(describeError(e).lines[0]).toBe('error: Inválido. — external_id: Formato. (422 validation_failed)');
  });

  it('a 401 from a base path of the other environment gets a hint', () => {
    rememberTarget({ baseUrl: 'https://api.example.com/v1', environment: 'test' });
    const e = new ApiError({ status: 401, code: 'unauthenticated', message: 'Credencial inválida.', requestId: 'req_2' });
    expect(describeError(e).lines[1]).toBe('hint: the credential is a test credential; did you mean https://api.example.com/sandbox/v1?');
    rememberTarget(undefined);
  });

  it('an unexpected error is one redacted line; the stack only with verbose', () => {
    const e = new Error('boom svs_test_abcdefghijkl\nsecond line');
    expect(describeError(e)).toMatchObject({ lines: [expect.stringMatching(/^error: boom svs_test_\[\w+\]$/)], exitCode: 1 });
    const verbose = describeError(e, { verbose: true });
    expect(verbose.lines).toHaveLength(2);
    expect(verbose.lines.join('\n')).not.toContain('abcdefghijkl');
  });

  it.each([
    ['the client\'s network failure (status 0) by its code', new ApiError({ status: 0, code: 'network_error', message: 'fetch failed', cause: { code: 'ECONNRESET' } }), 'ECONNRESET'],
    ['the client\'s network failure without a known code, by its message', new ApiError({ status: 0, code: 'network_error', message: 'fetch failed' }), 'fetch failed'],
    ['a socket error of another caller, found in its causes', new Error('fetch failed', { cause: new Error('x', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) }) }), 'ENOTFOUND'],
  ])('no HTTP answer: %s, one line naming the target, exit 1', (_name, error, detail) => {
    rememberTarget({ baseUrl: 'http://127.0.0.1:1/sandbox/v1', environment: 'test' });
    expect(describeError(error)).toMatchObject({ lines: [`error: could not reach http://127.0.0.1:1/sandbox/v1 (${detail})`], exitCode: 1 });
    rememberTarget(undefined);
  });

  it('a refused connection to this machine asks whether the emulator is running; elsewhere it does not', () => {
    const refused = (address: string) => new ApiError({ status: 0, code: 'network_error', message: 'x', cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED', address, port: 4010 }) });
    rememberTarget({ baseUrl: 'http://localhost:4010/sandbox/v1', environment: 'test' });
    expect(describeError(refused('127.0.0.1')).lines).toEqual(['error: could not reach http://localhost:4010/sandbox/v1 (ECONNREFUSED): is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at the one you use']);
    rememberTarget({ baseUrl: 'https://api.example.com/sandbox/v1', environment: 'test' });
    expect(describeError(refused('203.0.113.7')).lines).toEqual(['error: could not reach https://api.example.com/sandbox/v1 (ECONNREFUSED)']);
    rememberTarget(undefined);
    // No target resolved (a control-only command): the address the socket tried.
    expect(describeError(refused('::1')).lines[0]).toBe('error: could not reach http://[::1]:4010 (ECONNREFUSED): is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at the one you use');
  });

  it('a state error shows its details object on the line: current_status, expected_part', () => {
    rememberTarget(undefined);
    const transition = new ApiError({ status: 409, code: 'invalid_status_transition', message: 'Transición inválida.', details: { current_status: 'completed' }, requestId: 'req_3' });
    expect(describeError(transition).lines).toEqual(['error: Transición inválida. — current_status: completed (409 invalid_status_transition, request_id req_3)']);
    const part = new ApiError({ status: 409, code: 'snapshot_out_of_order', message: 'Parte fuera de orden.', details: { expected_part: 3 } });
    expect(describeError(part).lines[0]).toBe('error: Parte fuera de orden. — expected_part: 3 (409 snapshot_out_of_order)');
  });

  it('the --json form is the API\'s error body plus the status, redacted; usage errors are usage_error with a null status', () => {
    rememberTarget(undefined);
    const e = new ApiError({ status: 409, code: 'invalid_status_transition', message: 'Transición inválida.', details: { current_status: 'completed' }, requestId: 'req_3' });
    expect(describeError(e).json).toEqual({ error: { status: 409, code: 'invalid_status_transition', message: 'Transición inválida.', details: { current_status: 'completed' }, request_id: 'req_3' } });
    expect(describeError(new ExitError('error: bad flag svs_test_abcdefghijkl', 2)).json).toEqual({
      error: { status: null, code: 'usage_error', message: 'bad flag svs_test_[redacted]', details: null, request_id: null },
    });
    expect(describeError(new ExitError('error: 2 operations failed', 1, { code: 'operations_failed', details: [{ n: 1 }] })).json.error).toMatchObject({ code: 'operations_failed', details: [{ n: 1 }] });
    expect(describeError(new Error('boom')).json.error).toMatchObject({ code: 'unexpected_error', message: 'boom' });
  });

  it('an ExitError keeps its code', () => expect(describeError(new ExitError('x', 2)).exitCode).toBe(2));
});

describe('profile crypto', () => {
  const key = randomBytes(32);
  it('round-trips with a fresh IV each time; another AAD or key, or a flipped byte, opens to null', () => {
    const a = seal('svk_test_a.svs_test_b', key, 'p1');
    const b = seal('svk_test_a.svs_test_b', key, 'p1');
    expect(a.iv).not.toBe(b.iv);
    expect(open(a, key, 'p1')).toBe('svk_test_a.svs_test_b');
    expect(open(a, key, 'p2')).toBeNull();
    expect(open(a, randomBytes(32), 'p1')).toBeNull();
    const data = Buffer.from(a.data, 'base64');
    data[0] ^= 1;
    expect(open({ ...a, data: data.toString('base64') }, key, 'p1')).toBeNull();
  });

  it.each([
    ['a'.repeat(64), 32],
    [randomBytes(32).toString('base64'), 32],
    ['a passphrase', 32],
  ])('keyFromText(%s) is 32 bytes', (text, len) => expect(keyFromText(text)).toHaveLength(len));
});

describe('output', () => {
  it('formatTable aligns columns, right-aligns numbers, prints - for empty cells and no trailing spaces', () => {
    const text = formatTable(
      [
        { n: 1, name: 'Ana', x: null },
        { n: 120, name: 'Bartolomé', x: 'y' },
      ],
      [
        { header: 'N', value: (r) => r.n, align: 'right' },
        { header: 'NAME', value: (r) => r.name },
        { header: 'X', value: (r) => r.x },
      ],
    );
    expect(text.split('\n')).toEqual(['  N  NAME       X', '  1  Ana        -', '120  Bartolomé  y']);
  });
});

describe('option lists of the CLI', () => {
  // One copy only: the CLI uses the contract's own lists (from the zod-free src/contract/enums.ts),
  // the very arrays the schemas are built from, not copies that could drift.
  it.each([
    [cliLists.ORDER_STATUSES, ORDER_STATUSES],
    [cliLists.ACK_STATUSES, ACK_STATUSES],
    [cliLists.IMPORT_FAILURE_CODES, IMPORT_FAILURE_CODES],
    [cliLists.SIMULATOR_SCENARIOS, SIMULATOR_SCENARIOS],
    [cliLists.DELIVERY_STATUSES, DELIVERY_STATUSES],
    [cliLists.ENTREGA_ACTIONS, ENTREGA_ACTIONS],
    [cliLists.ENTREGA_PAYMENT_METHODS, ENTREGA_PAYMENT_METHODS],
  ])('%j is the contract\'s own list', (mine, contract) => expect(mine).toBe(contract));
});

describe('retryReporter', () => {
  const info = (delayMs: number, status = 503, code = 'maintenance') =>
    ({ endpointId: 'x', method: 'GET', path: '/me', retry: 1, delayMs, idempotencyKey: null, error: new ApiError({ status, code, message: 'm' }) });
  const run = (verbose: boolean, delays: [number, number?, string?][]) => {
    const out: string[] = [];
    const report = retryReporter(verbose, (t) => out.push(t));
    for (const [ms, status, code] of delays) report(info(ms, status, code));
    return out;
  };
  it.each([
    ['short waits stay silent', false, [[1000], [2000]], []],
    ['the first long wait is noted once', false, [[1000], [4000], [8000]], ['note: GET /me answered 503 maintenance; waiting 4 s before retrying (--verbose shows every retry)\n']],
    ['a network failure says no answer', false, [[3000, 0, 'network_error']], ['note: GET /me got no answer (network_error); waiting 3 s before retrying (--verbose shows every retry)\n']],
    ['--verbose prints every retry', true, [[5], [10]], ['retrying: GET /me failed (503 maintenance); retry 1 in 5 ms\n', 'retrying: GET /me failed (503 maintenance); retry 1 in 10 ms\n']],
  ] as const)('%s', (_name, verbose, delays, expected) => expect(run(verbose, delays as unknown as [number, number?, string?][])).toEqual(expected));
});

describe('readStdinLine (--credential-stdin)', () => {
  it('reads a piped line as it is', async () => {
    const stdin = new PassThrough();
    const line = readStdinLine(stdin);
    stdin.end('svk_test_a.svs_test_b\nrest\n');
    expect(await line).toBe('svk_test_a.svs_test_b');
  });

  it('on a terminal (nothing piped) reads without echo: raw mode, so a typed credential never shows', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const line = readStdinLine(stdin as unknown as NodeJS.ReadStream);
      stdin.write('svk_test_a.svs_test_b\n');
      expect(await line).toBe('svk_test_a.svs_test_b');
      expect(stdin.setRawMode).toHaveBeenCalledWith(true);
    } finally {
      stderr.mockRestore();
    }
  });
});
