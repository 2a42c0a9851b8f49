import type { Command } from 'commander';

/** `merchant-kit completion`: being built. */
export function register(_program: Command): void {}
