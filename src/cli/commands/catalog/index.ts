import type { Command } from 'commander';

/** `merchant-kit catalog`: being built. */
export function register(_program: Command): void {}
