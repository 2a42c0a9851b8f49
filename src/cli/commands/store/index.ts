import type { Command } from 'commander';

/** `merchant-kit store`: being built. */
export function register(_program: Command): void {}
