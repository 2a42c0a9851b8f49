import type { ImageState } from './repository.js';

export type { ImageState };

// Pure catalog rules, table-tested in test/emulator/catalog/rules.test.ts.

/** spec: Idempotency rule 6 — a version older than the applied one is not applied. */
export function isStale(applied: number | null, incoming: number | undefined): boolean {
  return incoming !== undefined && applied !== null && incoming < applied;
}

/** The guard kept after a write: an omitted `source_updated_at` keeps the one already applied. */
export function keptSourceUpdatedAt(applied: number | null, incoming: number | undefined): number | null {
  return incoming ?? applied;
}

export interface ImagePlan {
  next: ImageState;
  /** The address to download in the background, or null. */
  fetch: string | null;
}

/**
 * What a product write does to its photo (spec: Product, image_url and image_mode; DESIGN: a panel
 * photo prevails). Omitting `image_url` never touches the photo; the old photo stays until a new one
 * is accepted; the same address again is not downloaded again.
 */
export function planImage(from: ImageState, imageUrl: string | undefined, mode: 'replace' | 'if_empty'): ImagePlan {
  const current = imageOf(from);
  if (imageUrl === undefined) return { next: current, fetch: null };
  // Remembered, and downloaded once the panel clears its photo.
  if (current.photoSource === 'panel') return { next: { ...current, imageRequestedUrl: imageUrl }, fetch: null };
  if (mode === 'if_empty' && current.photoUrl !== null) return { next: current, fetch: null };
  if (imageUrl === current.imageRequestedUrl && current.imageStatus !== 'none') return { next: current, fetch: null };
  return { next: { ...current, imageStatus: 'pending', imageRequestedUrl: imageUrl, imageError: null }, fetch: imageUrl };
}

/** Only the image fields of a product (a product carries many more). */
export function imageOf(p: ImageState): ImageState {
  const { photoUrl, photoSource, imageStatus, imageRequestedUrl, imageError } = p;
  return { photoUrl, photoSource, imageStatus, imageRequestedUrl, imageError };
}

export function sameImage(a: ImageState, b: ImageState): boolean {
  return (
    a.photoUrl === b.photoUrl && a.photoSource === b.photoSource && a.imageStatus === b.imageStatus &&
    a.imageRequestedUrl === b.imageRequestedUrl && a.imageError === b.imageError
  );
}
