import { describe, expect, it } from 'vitest';
import { isStale, keptSourceUpdatedAt, planImage, type ImageState } from '../../../emulator/catalog/rules.js';

describe('isStale (spec: Idempotency rule 6)', () => {
  it.each([
    [null, undefined, false],
    [null, 5, false],
    [10, undefined, false],
    [10, 10, false],
    [10, 11, false],
    [10, 9, true],
  ])('applied %s, incoming %s → %s', (applied, incoming, stale) => {
    expect(isStale(applied, incoming)).toBe(stale);
  });

  it('keeps the applied source_updated_at when the write omits it', () => {
    expect(keptSourceUpdatedAt(10, undefined)).toBe(10);
    expect(keptSourceUpdatedAt(10, 12)).toBe(12);
    expect(keptSourceUpdatedAt(null, undefined)).toBeNull();
  });
});

describe('planImage', () => {
  const none: ImageState = { photoUrl: null, photoSource: null, imageStatus: 'none', imageRequestedUrl: null, imageError: null };
  const ready: ImageState = { photoUrl: 'https://a/1.png', photoSource: 'integration', imageStatus: 'ready', imageRequestedUrl: 'https://a/1.png', imageError: null };
  const panel: ImageState = { photoUrl: 'https://p/x.jpg', photoSource: 'panel', imageStatus: 'ready', imageRequestedUrl: null, imageError: null };
  const rejected: ImageState = { ...ready, imageStatus: 'rejected', imageRequestedUrl: 'https://a/bad.png', imageError: 'x' };

  it.each([
    ['omitted: nothing happens', ready, undefined, 'replace', ready, null],
    ['new address: pending, old photo stays', ready, 'https://a/2.png', 'replace', { ...ready, imageStatus: 'pending', imageRequestedUrl: 'https://a/2.png' }, 'https://a/2.png'],
    ['same address again: nothing', ready, 'https://a/1.png', 'replace', ready, null],
    ['same rejected address: nothing', rejected, 'https://a/bad.png', 'replace', rejected, null],
    ['first photo', none, 'https://a/1.png', 'replace', { ...none, imageStatus: 'pending', imageRequestedUrl: 'https://a/1.png' }, 'https://a/1.png'],
    ['if_empty with a photo: nothing', ready, 'https://a/2.png', 'if_empty', ready, null],
    ['if_empty without a photo: downloads', none, 'https://a/2.png', 'if_empty', { ...none, imageStatus: 'pending', imageRequestedUrl: 'https://a/2.png' }, 'https://a/2.png'],
    ['panel photo prevails: only remembered', panel, 'https://a/2.png', 'replace', { ...panel, imageRequestedUrl: 'https://a/2.png' }, null],
  ] as const)('%s', (_label, current, url, mode, next, fetch) => {
    expect(planImage({ ...current, ...{ name: 'ignored' } } as ImageState, url, mode)).toEqual({ next, fetch });
  });
});
