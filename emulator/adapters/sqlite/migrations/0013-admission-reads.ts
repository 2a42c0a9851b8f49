import type { Migration } from './index.js';

// The server adapter's step 13 (the functions its admissions call for a products page and for an
// order, only when the store's catalog or the order moved). SQLite reads both in process and needs
// none; the step keeps the two lists alike (a bundle's schema_version).
export const admissionReads: Migration = {
  version: 13,
  name: 'admission-reads',
  up: '',
};
