import type { Command } from 'commander';

/** `merchant-kit profile`: being built. */
export function register(_program: Command): void {}
