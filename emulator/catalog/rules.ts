import type { ImageStatus, PhotoSource } from '../data/catalog.js';

// Pure catalog rules, table-tested in test/emulator/catalog.rules.test.ts.

/** spec: Idempotency rule 6 — a version older than the applied one is not applied. */
export function isStale(applied: number | null, incoming: number | undefined): boolean {
  return incoming !== undefined && applied !== null && incoming < applied;
}

/** The guard kept after a write: an omitted `source_updated_at` keeps the one already applied. */
export function keptSourceUpdatedAt(applied: number | null, incoming: number | undefined): number | null {
  return incoming ?? applied;
}

export interface ImageState {
  photo_url: string | null;
  photo_source: PhotoSource | null;
  image_status: ImageStatus;
  image_requested_url: string | null;
  image_error: string | null;
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
  if (current.photo_source === 'panel') return { next: { ...current, image_requested_url: imageUrl }, fetch: null };
  if (mode === 'if_empty' && current.photo_url !== null) return { next: current, fetch: null };
  if (imageUrl === current.image_requested_url && current.image_status !== 'none') return { next: current, fetch: null };
  return { next: { ...current, image_status: 'pending', image_requested_url: imageUrl, image_error: null }, fetch: imageUrl };
}

/** Only the image fields of a row (a product row carries many more). */
export function imageOf(row: ImageState): ImageState {
  const { photo_url, photo_source, image_status, image_requested_url, image_error } = row;
  return { photo_url, photo_source, image_status, image_requested_url, image_error };
}

export function sameImage(a: ImageState, b: ImageState): boolean {
  return (
    a.photo_url === b.photo_url && a.photo_source === b.photo_source && a.image_status === b.image_status &&
    a.image_requested_url === b.image_requested_url && a.image_error === b.image_error
  );
}
