import type { Command } from 'commander';

/** `merchant-kit simulate`: being built. */
export function register(_program: Command): void {}
