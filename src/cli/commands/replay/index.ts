import type { Command } from 'commander';

/** `merchant-kit replay`: being built. */
export function register(_program: Command): void {}
