import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
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

/**
 * A database of its own for the enclosing describe block and one client connected to it: connected
 * before the block's tests, closed after them, before the database is dropped (vitest runs the
 * after-hooks in reverse order).
 */
export function useTestClient(options: TestDatabaseOptions = {}): { database: () => TestDatabase; client: () => pg.Client } {
  const database = useTestDatabase(options);
  let client: pg.Client | undefined;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: database().url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });
  return {
    database,
    client: () => {
      if (!client) throw new Error('useTestClient: the client connects in the block\'s beforeAll');
      return client;
    },
  };
}
