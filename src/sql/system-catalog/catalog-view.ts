import type { SqlType } from '../../common/sql-type.js';
import type { MaterializedViewMetadata, SequenceMetadata, TableConstraint, UserTypeMetadata } from '../../lake/index.js';
import type { VirtualTable, VirtualTableContext } from '../binder/virtual-table.js';
import type { ServiceRelations } from './service-relations.js';

/** A lake table as the catalog views need it (src/lake's TableMetadata satisfies it). */
export interface CatalogTableInfo {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly {
    readonly name: string; readonly type: SqlType; readonly nullable: boolean; readonly defaultExpr?: string;
    readonly fieldId?: number; readonly identity?: { readonly generation: 'always' | 'byDefault'; readonly sequenceId: number };
    /** Kept by Floe (a materialized view's key and state): never shown by a catalog. */
    readonly hidden?: boolean;
  }[];
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
  listSequences?(namespace?: string): readonly CatalogSequenceInfo[];
  getSequenceById?(id: number): CatalogSequenceInfo | undefined;
  sequenceState?(id: number): { lastValue: bigint; isCalled: boolean };
  listViews?(namespace?: string): readonly CatalogViewInfo[];
  getViewById?(id: number): CatalogViewInfo | undefined;
  listComments?(): readonly CatalogComment[];
  /** The tables that are materialized views, by the record of their query (table id = view oid). */
  listMaterializedViews?(): readonly CatalogMaterializedViewRecord[];
  getMaterializedView?(tableId: number): CatalogMaterializedViewRecord | undefined;
  /** Enum and shell types (CREATE TYPE). */
  listTypes?(): readonly UserTypeMetadata[];
  /** The session's temporary schema (`pg_temp_N`) once it has one. */
  readonly tempNamespace?: string | undefined;
}

/** A view as the catalog relations show it (src/lake's ViewMetadata satisfies it). */
export interface CatalogViewInfo {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly definition: string;
  readonly columns: readonly { readonly name: string; readonly type: SqlType }[];
  /** search_path at CREATE VIEW: the definition's unqualified names resolve through it. */
  readonly searchPath?: readonly string[];
  /** pg_class.reloptions: `security_barrier=true`, … */
  readonly options?: readonly string[];
  /** The relations the query reads directly, by id (pg_depend of its _RETURN rule). */
  readonly dependsOn?: readonly number[];
}

/** What the catalogs read of a materialized view's record (src/lake's). */
export type CatalogMaterializedViewRecord = Pick<MaterializedViewMetadata, 'tableId' | 'definition' | 'searchPath' | 'dependsOn' | 'options' | 'populated'>;

/**
 * A materialized view as the catalog relations show it: a view's facts (name, columns,
 * definition, reloptions) plus whether it is populated, and its table as the catalogs see
 * it (the user's columns only, no key: materialized-view-relations.ts).
 */
export interface CatalogMaterializedViewInfo extends CatalogViewInfo {
  readonly populated: boolean;
  readonly table: CatalogTableInfo;
}

/** COMMENT ON text by object id and sub id (src/lake's RelationComment). */
export interface CatalogComment {
  readonly objectId: number;
  readonly subId: number;
  readonly description: string;
}

/** A sequence as the catalog views need it: src/lake's metadata without the live counter. */
export type CatalogSequenceInfo = Omit<SequenceMetadata, 'lastValue' | 'isCalled'>;

/**
 * What one catalog query sees: lake namespaces and tables, plus the virtual relations.
 * Tables here have no hidden columns, and materialized views are not among them.
 */
export interface CatalogView {
  readonly ctx: VirtualTableContext;
  readonly namespaces: readonly string[];
  readonly tables: readonly CatalogTableInfo[];
  readonly sequences: readonly CatalogSequenceInfo[];
  readonly views: readonly CatalogViewInfo[];
  /** Kept apart from `tables`: PostgreSQL lists them only where it lists relkind 'm'. */
  readonly materializedViews: readonly CatalogMaterializedViewInfo[];
  readonly comments: readonly CatalogComment[];
  readonly virtualTables: readonly VirtualTable[];
  /** The services attached to the warehouse (floe_optimizing and the other service views), if any. */
  readonly services?: ServiceRelations;
}

export function lakeWarehouse(w: unknown): CatalogWarehouse | undefined {
  const c = w as Partial<CatalogWarehouse> | undefined;
  return c && typeof c.listNamespaces === 'function' && typeof c.listTables === 'function' ? (c as CatalogWarehouse) : undefined;
}
