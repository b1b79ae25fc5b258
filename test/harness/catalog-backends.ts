import { after, before, describe } from 'node:test';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { PostgresCatalog } from '../../src/lake/catalog/postgres/postgres-catalog.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/** One catalog, to which a test opens as many connections as it needs (as gateways and optimizers do). */
export interface CatalogPlace {
  connect(): SqlCatalog;
  /**
   * A connection this thread's other catalogs do not know shares their database, as
   * another process's would be: its commits reach them only through the database's
   * data version (SQLite's data_version, PostgreSQL's catalog_version).
   */
  connectAsAnotherProcess(): SqlCatalog;
  /** Closes every connection it opened and removes the catalog. */
  dispose(): void;
}

export interface CatalogBackend {
  readonly name: 'sqlite' | 'postgres';
  /** A new, empty catalog. */
  place(): CatalogPlace;
}

function placeOf(open: () => SqlCatalog, openElsewhere: () => SqlCatalog, remove: () => void): CatalogPlace {
  const opened: SqlCatalog[] = [];
  const keep = (c: SqlCatalog): SqlCatalog => {
    opened.push(c);
    return c;
  };
  return {
    connect: () => keep(open()),
    connectAsAnotherProcess: () => keep(openElsewhere()),
    dispose() {
      for (const c of opened) {
        try { c.close(); } catch { /* closed by the test */ }
      }
      remove();
    },
  };
}

const sqlite: CatalogBackend = {
  name: 'sqlite',
  place() {
    const dir = mkdtempSync(join(tmpdir(), 'floe-catalog-'));
    // The same file under another path: catalogs of one thread know each other by path.
    symlinkSync(dir, join(dir, 'alias'));
    return placeOf(
      () => new SqliteCatalog(join(dir, 'catalog.db')), () => new SqliteCatalog(join(dir, 'alias', 'catalog.db')),
      () => rmSync(dir, { recursive: true, force: true }),
    );
  },
};

/**
 * The catalog contract's tests, once per implementation: `define` declares them against
 * the backend it is given (called inside each test, once the PostgreSQL server is up). On
 * PostgreSQL each place is a fresh schema of one database, dropped with it after the file.
 */
export function forEachCatalogBackend(define: (backend: () => CatalogBackend) => void): void {
  describe('on SQLite', () => define(() => sqlite));
  describe('on PostgreSQL', () => {
    let server: PostgresServer | undefined;
    before(async () => { server = await startPostgres(); });
    after(async () => { await server?.stop(); });
    define(() => ({
      name: 'postgres',
      place() {
        const schema = `catalog_${randomBytes(6).toString('hex')}`;
        // Another URL for the same database: catalogs of one thread know each other by URL.
        const elsewhere = new URL(server!.url);
        elsewhere.searchParams.set('application_name', 'another process');
        return placeOf(
          () => new PostgresCatalog({ url: server!.url, schema }), () => new PostgresCatalog({ url: elsewhere.toString(), schema }),
          () => undefined,
        );
      },
    }));
  });
}
