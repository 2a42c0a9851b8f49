import type { Migration } from './index.js';

export const webhooks: Migration = {
  version: 4,
  name: 'webhooks',
  up: ``,
};
