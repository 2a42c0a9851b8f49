#!/usr/bin/env node
import module from 'node:module';

// Faster start-up on Node versions that have a compile cache.
module.enableCompileCache?.();
await import('../dist/src/cli/main.js');
