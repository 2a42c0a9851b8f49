import type { Command } from 'commander';

/** `merchant-kit proxy`: being built. */
export function register(_program: Command): void {}
