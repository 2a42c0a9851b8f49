import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import { applyImageOutcome } from './apply.js';

/** The download's time limit, in real time (the spec gives 10 s for webhook answers; we use the same). */
const DOWNLOAD_TIMEOUT_MS = 10_000;

/** One environment's background image downloads; `drain()` resolves when none is pending. */
export class ImageQueue {
  private readonly pending = new Set<Promise<void>>();
  private controller = new AbortController();

  constructor(private readonly env: EnvContext) {}

  enqueue(productId: string, url: string): void {
    const cancelled = this.controller.signal;
    const signal = AbortSignal.any([cancelled, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]);
    const job = (async () => {
      // The downloader (and undici with it) loads with the first image, not at the emulator's start.
      const { downloadImage } = await import('./download.js');
      const outcome = await downloadImage(url, signal, this.env.outbound);
      if (!cancelled.aborted) await applyImageOutcome(this.env, productId, url, outcome);
    })()
      .catch(() => undefined)
      .finally(() => this.pending.delete(job));
    this.pending.add(job);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Waits for every download, including those queued while waiting. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Cancels every download in flight (reset, close); their products are not touched. */
  abort(): void {
    this.controller.abort();
    this.controller = new AbortController();
  }
}

const queues = new WeakMap<EnvContext, ImageQueue>();

export function attachImageQueue(env: EnvContext): ImageQueue {
  const queue = new ImageQueue(env);
  queues.set(env, queue);
  return queue;
}

export function imageQueueOf(env: EnvContext): ImageQueue | undefined {
  return queues.get(env);
}

/**
 * Asks for a background download once the writing transaction has committed (a rolled-back write
 * asks for nothing); without the image service running, the image stays pending.
 */
export function requestImageFetch(env: EnvContext, tx: Tx, productId: string, url: string): void {
  tx.afterCommit(() => queues.get(env)?.enqueue(productId, url));
}
