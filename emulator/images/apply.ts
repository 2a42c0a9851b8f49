import type { EnvContext } from '../context.js';
import type { DownloadOutcome } from './download.js';

/**
 * Records a finished download, if the product still waits for that address (a later PUT, a panel
 * photo or a rolled-back write make it moot). A bad image never fails the product: its status
 * becomes `rejected` with the reason, and the previous photo stays.
 */
export async function applyImageOutcome(env: EnvContext, productId: string, url: string, outcome: DownloadOutcome): Promise<void> {
  await env.store.tx(async (tx) => {
    const row = await tx.catalog.productById(productId);
    if (!row || row.imageStatus !== 'pending' || row.imageRequestedUrl !== url || row.photoSource === 'panel') return;
    const accepted = outcome.ok
      ? { photoUrl: url, photoSource: 'integration' as const, imageStatus: 'ready' as const, imageError: null }
      : { photoUrl: row.photoUrl, photoSource: row.photoSource, imageStatus: 'rejected' as const, imageError: outcome.error };
    await tx.catalog.setImage(row.id, { imageRequestedUrl: url, ...accepted }, env.clock.now());
  });
}
