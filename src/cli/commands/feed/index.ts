import type { Command } from 'commander';

/** `merchant-kit feed`: being built. */
export function register(_program: Command): void {}
