import type { Db } from '../store/sqlite/open.js';
import type { IntegrationSettings, IntegrationStatus, Scope } from '../../src/contract/store.js';

export type { IntegrationStatus };

interface IntegrationRow {
  id: string;
  store_id: string;
  system: string;
  status: string;
  scopes: string;
  settings: string;
  created_at: number;
  updated_at: number;
}

export interface IntegrationRecord {
  id: string;
  storeId: string;
  system: string;
  status: IntegrationStatus;
  scopes: Scope[];
  settings: IntegrationSettings;
  createdAt: number;
  updatedAt: number;
}

const toRecord = (r: IntegrationRow): IntegrationRecord => ({
  id: r.id,
  storeId: r.store_id,
  system: r.system,
  status: r.status as IntegrationStatus,
  scopes: JSON.parse(r.scopes),
  settings: JSON.parse(r.settings),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createIntegrationStatements(db: Db) {
  const insert = db.prepare(
    `INSERT INTO integrations (id, store_id, system, status, scopes, settings, created_at, updated_at)
     VALUES (@id, @store_id, @system, 'inactive', @scopes, @settings, @now, @now)`,
  );
  const byId = db.prepare<[string], IntegrationRow>('SELECT * FROM integrations WHERE id = ?');
  const byStore = db.prepare<[string], IntegrationRow>('SELECT * FROM integrations WHERE store_id = ? ORDER BY created_at, id');
  const all = db.prepare<[], IntegrationRow>('SELECT * FROM integrations ORDER BY created_at, id');
  const update = db.prepare(
    'UPDATE integrations SET status = @status, scopes = @scopes, settings = @settings, updated_at = @now WHERE id = @id',
  );
  const activate = db.prepare(
    "UPDATE integrations SET status = 'active', updated_at = @now WHERE id = @id AND status = 'inactive'",
  );

  return {
    insert(i: { id: string; storeId: string; system: string; scopes: Scope[]; settings: IntegrationSettings }, now: number) {
      insert.run({ id: i.id, store_id: i.storeId, system: i.system, scopes: JSON.stringify(i.scopes), settings: JSON.stringify(i.settings), now });
    },
    byId: (id: string) => {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    byStore: (storeId: string) => byStore.all(storeId).map(toRecord),
    all: () => all.all().map(toRecord),
    update(i: IntegrationRecord, now: number) {
      update.run({ id: i.id, status: i.status, scopes: JSON.stringify(i.scopes), settings: JSON.stringify(i.settings), now });
    },
    /** spec: Authentication 7 — the first valid call activates the integration. */
    activate: (id: string, now: number) => activate.run({ id, now }).changes > 0,
  };
}
export type IntegrationStatements = ReturnType<typeof createIntegrationStatements>;
