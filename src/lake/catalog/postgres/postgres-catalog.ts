import { SqlCatalog } from '../sql-catalog.js';
import { PostgresDatabase, type PostgresCatalogOptions } from './postgres-database.js';

/** The shared catalog: the SQL catalog in a PostgreSQL database, for several gateways and optimizers on one warehouse. */
export class PostgresCatalog extends SqlCatalog {
  constructor(opts: PostgresCatalogOptions) {
    super(new PostgresDatabase(opts));
  }
}
