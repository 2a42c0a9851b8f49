import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../files/atomic.js';
import type { SealedBox } from '../../config/crypto.js';
import { openWithMasterKey, sealWithMasterKey } from '../../config/profiles.js';

// The webhook signing secret `listen --configure` keeps between runs, so that the next run (and an
// app that verifies with it) goes on with the same secret, as `stripe listen` does. Encrypted with
// the profile store's master key (AES-256-GCM), bound to the target and the integration, in the
// profile's state folder; with the webhook's `updated_at` as the listener left it.

interface KeptFile {
  version: 1;
  /** The webhook's `updated_at` right after this listener's own `PUT /webhook`. */
  webhook_updated_at: string;
  secret: SealedBox;
}

export interface KeptSecret {
  /**
   * The kept secret, when the webhook was not changed by anyone since the run that kept it (same
   * `updated_at`: a rotation elsewhere, `webhook set`, the panel, would have moved it). Else null.
   */
  load(webhookUpdatedAt: string): string | null;
  save(secret: string, webhookUpdatedAt: string): void;
}

/** The kept secret of `integrationId` at `baseUrl`, in `stateDir` (the profile's state folder). */
export function keptSecret(stateDir: string, baseUrl: string, integrationId: string, env: NodeJS.ProcessEnv = process.env): KeptSecret {
  const path = join(stateDir, `listen-secret-${integrationId}.json`);
  const aad = JSON.stringify(['listen-webhook-secret', baseUrl, integrationId]);
  return {
    load(webhookUpdatedAt) {
      let kept: Partial<KeptFile>;
      try {
        kept = JSON.parse(readFileSync(path, 'utf8')) as Partial<KeptFile>;
      } catch {
        return null;
      }
      if (kept.version !== 1 || kept.webhook_updated_at !== webhookUpdatedAt || !kept.secret) return null;
      return openWithMasterKey(kept.secret, aad, env);
    },
    save(secret, webhookUpdatedAt) {
      const file: KeptFile = { version: 1, webhook_updated_at: webhookUpdatedAt, secret: sealWithMasterKey(secret, aad, env) };
      writeFileAtomic(path, `${JSON.stringify(file)}\n`);
    },
  };
}
