import type { Command } from 'commander';

/** `merchant-kit me`: being built. */
export function register(_program: Command): void {}
