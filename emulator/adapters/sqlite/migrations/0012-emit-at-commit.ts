import type { Migration } from './index.js';

// The server adapter's step 12 (a function its emits call to check their targets under the feed
// counter's lock). SQLite runs one writer at a time and needs none; the step keeps the two lists
// alike (a bundle's schema_version).
export const emitAtCommit: Migration = {
  version: 12,
  name: 'emit-at-commit',
  up: '',
};
