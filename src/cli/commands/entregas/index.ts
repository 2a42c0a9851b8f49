import type { Command } from 'commander';

/** `merchant-kit entregas`: being built. */
export function register(_program: Command): void {}
