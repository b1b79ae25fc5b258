import type { SqlType } from '../../common/sql-type.js';
import type { TableConstraint } from '../../lake/index.js';
import type { VirtualTable, VirtualTableContext } from '../binder/virtual-table.js';

/** A lake table as the catalog views need it (src/lake's TableMetadata satisfies it). */
export interface CatalogTableInfo {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: SqlType; readonly nullable: boolean; readonly defaultExpr?: string }[];
  readonly primaryKey: readonly string[];
  readonly partitionBy?: readonly unknown[];
  readonly properties?: Readonly<Record<string, string>>;
  readonly constraints?: readonly TableConstraint[];
}

/** The warehouse calls the catalog views make (src/lake's Warehouse satisfies it). */
export interface CatalogWarehouse {
  listNamespaces(): string[];
  listTables(namespace?: string): readonly CatalogTableInfo[];
  getTableById?(id: number): CatalogTableInfo | undefined;
}

/** What one catalog query sees: lake namespaces and tables, plus the virtual relations. */
export interface CatalogView {
  readonly ctx: VirtualTableContext;
  readonly namespaces: readonly string[];
  readonly tables: readonly CatalogTableInfo[];
  readonly virtualTables: readonly VirtualTable[];
}

export function lakeWarehouse(w: unknown): CatalogWarehouse | undefined {
  const c = w as Partial<CatalogWarehouse> | undefined;
  return c && typeof c.listNamespaces === 'function' && typeof c.listTables === 'function' ? (c as CatalogWarehouse) : undefined;
}
