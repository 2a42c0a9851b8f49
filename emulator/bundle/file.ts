import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { decodeBundle } from './envelope.js';
import { BundleError, type Bundle } from './format.js';

/** Reads and checks a bundle file; BundleError (one line) when it cannot be used. */
export function readBundleFile(file: string): Bundle {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new BundleError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return decodeBundle(bytes);
}

/**
 * Writes a bundle readable by its owner only (it holds customers' data and delivery codes), through
 * a temporary file and a rename, so an interrupted export never leaves a half-written bundle.
 */
export function writeBundleFile(file: string, bytes: Buffer): void {
  const partial = `${file}.partial-${process.pid}`;
  try {
    writeFileSync(partial, bytes, { mode: 0o600 });
    chmodSync(partial, 0o600);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new BundleError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
