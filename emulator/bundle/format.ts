/**
 * A state bundle: the emulator's whole state in one gzip-compressed JSON file.
 *
 *   {"format":"merchant-kit-bundle","version":1,"created_at":"…","sha256":"<hex>","payload":{…}}
 *
 * `sha256` is the SHA-256 of the payload's exact JSON text (the bytes between `"payload":` and the
 * final `}`), so a reader checks it without re-encoding anything. The payload holds the clock and,
 * per environment, every table of its SQLite database as column names and rows.
 */
export const BUNDLE_FORMAT = 'merchant-kit-bundle';
export const BUNDLE_VERSION = 1;

/** A BLOB cell (credential digests), as hex. */
export interface BlobCell {
  $hex: string;
}
export type Cell = string | number | null | BlobCell;

export interface TableDump {
  columns: string[];
  rows: Cell[][];
}

export interface EnvironmentDump {
  /** The database's migration version (`PRAGMA user_version`). */
  schema_version: number;
  tables: Record<string, TableDump>;
  /** AUTOINCREMENT positions (event and delivery seq), which feed cursors depend on. */
  sequences: Record<string, number>;
}

export interface BundlePayload {
  clock: { now: string; now_ms: number; mode: string; offset_seconds: number };
  environments: Record<string, EnvironmentDump>;
}

export interface BundleHeader {
  format: string;
  version: number;
  created_at: string;
  sha256: string;
}

export interface Bundle extends BundleHeader {
  payload: BundlePayload;
}

/** A bundle that cannot be used; `message` is one line for the user. */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}
