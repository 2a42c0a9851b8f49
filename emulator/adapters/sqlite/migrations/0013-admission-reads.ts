import type { Migration } from './index.js';

// The server adapter's step 13 (a function its admissions call for a products page, only when the
// store's catalog moved). SQLite reads the page in process and needs none; the step keeps the two
// lists alike (a bundle's schema_version).
export const admissionReads: Migration = {
  version: 13,
  name: 'admission-reads',
  up: '',
};
