import { resolve } from 'node:path';
import { ExitError } from '../../errors.js';
import { DEFAULT_DATA_DIR, type StartOptions } from './index.js';

/** Where a start keeps the state: a data folder, memory, or a PostgreSQL database (DESIGN: the team sandbox). */
export interface StartStorage {
  /** The data folder, absolute; null in memory or on a database. */
  dataDir: string | null;
  /** `--database-url`, else MERCHANT_KIT_DATABASE_URL. */
  databaseUrl: string | null;
}

/** The storage a start asked for; two of them at once is a usage error (exit 2). */
export function startStorage(options: StartOptions): StartStorage {
  const databaseUrl = options.databaseUrl ?? process.env.MERCHANT_KIT_DATABASE_URL ?? null;
  const given = [options.data !== undefined && '--data', options.memory && '--memory', databaseUrl !== null && (options.databaseUrl ? '--database-url' : 'MERCHANT_KIT_DATABASE_URL')].filter(Boolean);
  if (given.length > 1) throw new ExitError(`Use one storage, not ${given.join(' and ')}: --data DIR, --memory or --database-url URL.`, 2);
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ExitError('--database-url must be a postgres:// (or postgresql://) URL.', 2);
  }
  if (databaseUrl !== null) return { dataDir: null, databaseUrl };
  return { dataDir: options.memory ? null : resolve(options.data ?? DEFAULT_DATA_DIR), databaseUrl: null };
}

/**
 * DESIGN: access requests need someone to approve them (`--admin-token`), and `--public-url` is an
 * address: an http(s) origin without a path. Usage errors (exit 2) before anything starts.
 */
export function checkOperatorFlags(options: StartOptions): void {
  if (options.accessRequests === 'open' && !(options.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN)) {
    throw new ExitError('--access-requests open requires --admin-token (or MERCHANT_KIT_ADMIN_TOKEN): whoever holds it approves the requests.', 2);
  }
  if (options.publicUrl === undefined) return;
  let url: URL | null = null;
  try {
    url = new URL(options.publicUrl);
  } catch {
    // reported below
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new ExitError(`--public-url must be an http(s) address without a path (https://sandbox.example.com), not ${options.publicUrl}`, 2);
  }
}

/** A database URL as shown to people: never its password. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'a PostgreSQL database';
  }
}
