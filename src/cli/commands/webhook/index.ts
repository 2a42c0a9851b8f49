import type { Command } from 'commander';

/** `merchant-kit webhook`: being built. */
export function register(_program: Command): void {}
