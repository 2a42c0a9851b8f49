import type { Command } from 'commander';

/** `merchant-kit orders`: being built. */
export function register(_program: Command): void {}
