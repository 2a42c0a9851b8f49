import type { Migration } from './index.js';

export const entregas: Migration = {
  version: 5,
  name: 'entregas',
  up: ``,
};
