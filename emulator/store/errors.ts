/**
 * An operation that failed because the storage could not be reached or went away (a shared
 * sandbox's database restarting, the network between cut); nothing was half applied. The HTTP
 * layer answers it 503 `maintenance` with Retry-After, never a 500 and a stack, and the next request
 * reconnects. Adapters throw it for their own driver's errors of that kind.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable';

  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(`the database is unavailable (${reason})`, options);
    this.name = 'StorageUnavailableError';
  }
}

export function isStorageUnavailable(error: unknown): error is StorageUnavailableError {
  return error instanceof StorageUnavailableError || (error as { code?: unknown } | null)?.code === 'storage_unavailable';
}
