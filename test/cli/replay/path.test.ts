import { describe, expect, it } from 'vitest';
import { replayablePath } from '../../../src/cli/commands/replay/path.js';

describe('replayablePath', () => {
  it.each([
    ['/sandbox/v1/me', '/sandbox/v1/me'],
    ['/v1/orders?ack_status=pending&limit=200', '/v1/orders?ack_status=pending&limit=200'],
    ['/sandbox/v1/orders/./ord_01M85K4B7YG0M1ES5ERX12QY31', '/sandbox/v1/orders/ord_01M85K4B7YG0M1ES5ERX12QY31'],
    ['/sandbox/v1', '/sandbox/v1'],
  ])('sends %s as %s', (recorded, sent) => expect(replayablePath(recorded)).toBe(sent));

  it.each([
    '/_emulator/clock/advance',
    '/_emulator',
    '/sandbox/v1/../../_emulator/reset',
    '/sandbox/v1/%2e%2e/%2e%2e/_emulator/reset',
    '/sandbox/v1/%2E./.%2E/_emulator/reset',
    '/v1/..',
    '/sandbox/v1\\..\\..\\_emulator',
    '//evil.example/v1/me',
    '/v10/me',
    '/sandbox/v1x/me',
    'v1/me',
    '',
  ])('refuses %j', (recorded) => expect(replayablePath(recorded)).toBeUndefined());
});
