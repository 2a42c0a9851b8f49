import type { Command } from 'commander';

/** `merchant-kit homologate`: being built. */
export function register(_program: Command): void {}
