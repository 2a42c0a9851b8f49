import { describe, expect, it } from 'vitest';
import { controlHomologationRecorder, controlHomologationStart, HOMOLOGATION_TIMEOUT } from '../../src/contract/control.js';

// The observer's control bodies are part of the one contract (src/contract/control.ts), like the
// other /_emulator bodies: the route and the CLI's --timeout read the same bounds.
describe('POST /_emulator/homologation/{integration_id}/start body', () => {
  it.each([
    ['no body fields (the default watch)', {}, true],
    ['the shortest watch', { timeout_seconds: HOMOLOGATION_TIMEOUT.min }, true],
    ['the longest watch', { timeout_seconds: HOMOLOGATION_TIMEOUT.max }, true],
    ['too short', { timeout_seconds: 4 }, false],
    ['too long', { timeout_seconds: 3601 }, false],
    ['not whole seconds', { timeout_seconds: 1.5 }, false],
    ['a string', { timeout_seconds: '30' }, false],
    ['an unknown field', { timeout: 30 }, false],
  ])('%s', (_name, body, ok) => {
    expect(controlHomologationStart.safeParse(body).success).toBe(ok);
  });

  it('watches 120 s by default, 5 to 3600 s (docs/homologation.md)', () => {
    expect(HOMOLOGATION_TIMEOUT).toEqual({ default: 120, min: 5, max: 3600 });
  });
});

describe('POST /_emulator/homologation/recorder body (bench only)', () => {
  it.each([
    [{ enabled: false }, true],
    [{ enabled: true }, true],
    [{ enabled: 'no' }, false],
    [{}, false],
    [{ enabled: true, extra: 1 }, false],
  ])('%j → %s', (body, ok) => {
    expect(controlHomologationRecorder.safeParse(body).success).toBe(ok);
  });
});
