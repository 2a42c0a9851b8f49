import type { EnvContext } from '../context.js';
import type { DownloadOutcome } from './download.js';

/**
 * Records a finished download, if the product still waits for that address (a later PUT, a panel
 * photo or a rolled-back write make it moot). A bad image never fails the product: its status
 * becomes `rejected` with the reason, and the previous photo stays.
 */
export function applyImageOutcome(env: EnvContext, productId: string, url: string, outcome: DownloadOutcome): void {
  env.tx(() => {
    const row = env.catalog.productById.get(productId);
    if (!row || row.image_status !== 'pending' || row.image_requested_url !== url || row.photo_source === 'panel') return;
    const accepted = outcome.ok
      ? { photo_url: url, photo_source: 'integration' as const, image_status: 'ready' as const, image_error: null }
      : { photo_url: row.photo_url, photo_source: row.photo_source, image_status: 'rejected' as const, image_error: outcome.error };
    env.catalog.setImage.run({ id: row.id, image_requested_url: url, updated_at: env.clock.now(), ...accepted });
  });
}
