import type { Migration } from './index.js';

export const orders: Migration = {
  version: 3,
  name: 'orders',
  up: ``,
};
