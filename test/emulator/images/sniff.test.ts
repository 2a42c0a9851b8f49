import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../../emulator/images/sniff.js';

describe('sniffImage', () => {
  it.each([
    [[0xff, 0xd8, 0xff, 0xe0], 'jpeg'],
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'png'],
    [[...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WEBP')], 'webp'],
    [[...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WAVE')], null],
    [[...Buffer.from('GIF89a')], null],
    [[...Buffer.from('<html>')], null],
    [[], null],
  ])('%j → %s', (bytes, kind) => {
    expect(sniffImage(Uint8Array.from(bytes))).toBe(kind);
  });
});
