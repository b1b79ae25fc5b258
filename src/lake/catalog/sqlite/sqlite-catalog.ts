import { SqlCatalog } from '../sql-catalog.js';
import { SqliteDatabase } from './sqlite-database.js';

/** The embedded catalog: the SQL catalog on one SQLite file in the warehouse (or in memory, for a session's temporary tables). */
export class SqliteCatalog extends SqlCatalog {
  /** `firstTableId` starts a new catalog's table ids there (a session's temporary tables take ids no shared table has). */
  constructor(path: string, opts: { readonly firstTableId?: number } = {}) {
    super(new SqliteDatabase(path, opts));
  }
}
