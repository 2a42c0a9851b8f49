import type { Environment } from '../../../src/contract/store.js';
import type { Repositories } from '../../store/port.js';
import type { Conn } from './conn.js';
import { credentialsSql, integrationsSql, pgCredentials, pgIntegrations, pgStores, storesSql } from './stores.js';
import { catalogSql, pgCatalog } from './catalog.js';
import { pgSnapshots, snapshotsSql } from './snapshots.js';
import { ordersSql, pgOrders } from './orders.js';
import { eventsSql, pgEvents } from './events.js';
import { pgWebhooks, webhooksSql } from './webhooks.js';
import { entregasSql, pgEntregas } from './entregas.js';
import { accessRequestsSql, pgAccessRequests } from './access-requests.js';

/** Every statement of one environment's schema, written once. */
export function environmentSql(schema: string) {
  return {
    stores: storesSql(schema),
    integrations: integrationsSql(schema),
    credentials: credentialsSql(schema),
    catalog: catalogSql(schema),
    snapshots: snapshotsSql(schema),
    orders: ordersSql(schema),
    events: eventsSql(schema),
    webhooks: webhooksSql(schema),
    entregas: entregasSql(schema),
    accessRequests: accessRequestsSql(schema),
    schema,
  };
}

export type EnvironmentSql = ReturnType<typeof environmentSql>;

/**
 * The repositories on one connection, each made when first used: a transaction touches two or three
 * of them, and is made for each unit of work.
 */
export class LazyRepositories implements Repositories {
  private made: Partial<Repositories> = {};

  constructor(
    readonly environment: Environment,
    protected readonly conn: Conn,
    protected readonly sql: EnvironmentSql,
  ) {}

  private get<K extends keyof Repositories>(name: K, make: () => Repositories[K]): Repositories[K] {
    return (this.made[name] ??= make()) as Repositories[K];
  }

  get stores() {
    return this.get('stores', () => pgStores(this.conn, this.sql.stores, this.environment));
  }
  get integrations() {
    return this.get('integrations', () => pgIntegrations(this.conn, this.sql.integrations, this.environment));
  }
  get credentials() {
    return this.get('credentials', () => pgCredentials(this.conn, this.sql.credentials, this.environment));
  }
  get catalog() {
    return this.get('catalog', () => pgCatalog(this.conn, this.sql.catalog, this.environment));
  }
  get snapshots() {
    return this.get('snapshots', () => pgSnapshots(this.conn, this.sql.snapshots));
  }
  get orders() {
    return this.get('orders', () => pgOrders(this.conn, this.sql.orders, this.environment));
  }
  get events() {
    return this.get('events', () => pgEvents(this.conn, this.sql.events));
  }
  get webhooks() {
    return this.get('webhooks', () => pgWebhooks(this.conn, this.sql.webhooks, this.environment));
  }
  get entregas() {
    return this.get('entregas', () => pgEntregas(this.conn, this.sql.entregas));
  }
  get accessRequests() {
    return this.get('accessRequests', () => pgAccessRequests(this.conn, this.sql.accessRequests, this.sql.schema));
  }
}
