import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './postgres.js';

/**
 * A database of its own for the enclosing describe block: made before its tests, dropped after them.
 * Call it in the block's body; the function it returns gives the database inside the tests.
 */
export function useTestDatabase(options: TestDatabaseOptions = {}): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(options);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error('useTestDatabase: the database is made in the block\'s beforeAll');
    return database;
  };
}
