import type { Migration } from './index.js';

// The server adapter's step 9 (a store's catalog version, which its admissions compare to the products
// page a process keeps): the embedded database has one process, which reads its pages from the file
// each time, so nothing changes here. The step keeps the two lists alike (a bundle's schema_version).
export const catalogVersions: Migration = {
  version: 9,
  name: 'catalog-versions',
  up: '',
};
