import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to a temp file beside `path` (mode 0600 unless told), syncs it and renames it over
 * `path`: a reader, or the next start after a crash, sees the old file or the new one, never half of
 * one. Shared by the CLI's files (profiles, cursors, catalog pulls) and the emulator's (clock, seeds,
 * bundles).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const fd = openSync(temp, 'wx', mode);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDir(dirname(path));
}

/** Makes a rename in `dir` durable (a no-op where directories cannot be opened, as on Windows). */
export function syncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself has happened.
  } finally {
    closeSync(fd);
  }
}
