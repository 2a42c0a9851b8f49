import { createHash } from 'node:crypto';
import { canonicalJson } from '../http/idempotency.js';
import type { Facts, RecordedCall } from '../../checks/observation.js';

export type { Facts, RecordedCall };

/** Calls kept per integration: enough for a long session, bounded so an endless loop cannot eat memory. */
export const RING_SIZE = 5000;

class Ring {
  private readonly items: RecordedCall[] = [];
  private next = 0;

  push(call: RecordedCall): void {
    if (this.items.length < RING_SIZE) this.items.push(call);
    else this.items[this.next] = call;
    this.next = (this.next + 1) % RING_SIZE;
  }

  /** Oldest first. */
  list(): RecordedCall[] {
    if (this.items.length < RING_SIZE) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

/**
 * The observer's record of every API call per integration since the emulator started or was reset:
 * always on and cheap (an object pushed into an in-memory ring). Never bodies, never the
 * Authorization header.
 */
export class CallRecorder {
  private rings = new Map<string, Ring>();
  private seq = 0;
  /** BENCH-ONLY switch (POST /_emulator/homologation/recorder) to measure what recording costs. */
  enabled = true;

  /** Keeps `call` (its `seq` is set here: one object per call, no copy). */
  record(integrationId: string, call: RecordedCall): void {
    if (!this.enabled) return;
    let ring = this.rings.get(integrationId);
    if (!ring) this.rings.set(integrationId, (ring = new Ring()));
    call.seq = ++this.seq;
    ring.push(call);
  }

  calls(integrationId: string): RecordedCall[] {
    return this.rings.get(integrationId)?.list() ?? [];
  }

  clear(): void {
    this.rings = new Map();
  }
}

/**
 * The body's digest over JSON with sorted keys (the idempotency layer's `canonicalJson`, safe on a
 * body nested thousands of levels deep), so two JSON-equal bodies have the same digest.
 */
export function bodyDigest(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
