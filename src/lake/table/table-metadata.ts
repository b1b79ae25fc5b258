import type { SqlType } from '../../common/sql-type.js';
import type { PartitionField } from '../partition/partition-transform.js';
import type { SequenceOptions } from '../sequence/sequence-metadata.js';
import type { InitialDefault } from './initial-default.js';

/** A column as CREATE TABLE gives it. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: SqlType;
  readonly nullable: boolean;
  readonly defaultExpr?: string;
  /** Identity column (GENERATED … AS IDENTITY): its values come from the owned sequence `sequenceId`. */
  readonly identity?: ColumnIdentity;
  /**
   * CREATE TABLE only: the column gets an owned sequence made with the table — serial
   * (its DEFAULT becomes nextval of it) or identity. Not kept in the metadata.
   */
  readonly sequence?: { readonly kind: 'serial' | 'always' | 'byDefault'; readonly options: SequenceOptions };
  /**
   * What rows written before the column existed read as (Iceberg v3's initial-default):
   * ADD COLUMN's DEFAULT, evaluated once, in initial-default.ts's JSON form. Later
   * SET/DROP DEFAULT change only `defaultExpr`, as in PostgreSQL.
   */
  readonly initialDefault?: InitialDefault;
  /**
   * Kept by Floe, not the user's: a materialized view's key and aggregate state. Hidden from
   * `*`, from the catalogs (pg_attribute, information_schema) and from COPY, yet read and
   * written by name, like PostgreSQL's system columns. Always after the user's columns.
   */
  readonly hidden?: boolean;
}

export interface ColumnIdentity {
  readonly generation: 'always' | 'byDefault';
  readonly sequenceId: number;
}

export interface TableDefinition {
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly ColumnDefinition[];
  /** Makes the table keyed (change store + base store); absent or empty: an append table. */
  readonly primaryKey?: readonly string[];
  readonly partitionBy?: readonly PartitionField[];
  readonly properties?: Readonly<Record<string, string>>;
  /** UNIQUE, CHECK and FOREIGN KEY constraints (the primary key is `primaryKey`). */
  readonly constraints?: readonly TableConstraint[];
}

/**
 * A table constraint beside the primary key. Names are unique per table, as PostgreSQL
 * requires of constraint and index names in practice (`<table>_<cols>_key`, `_check`, `_fkey`).
 * - unique: enforced with 23505 by the key machinery (UNIQUE, CREATE UNIQUE INDEX).
 * - check: enforced with 23514; `expr` is SQL text over the table's columns.
 * - foreignKey: recorded, shown NOT ENFORCED (PostgreSQL 18's spelling), never checked.
 * - index: a plain CREATE INDEX, shown as an index relation.
 */
export type TableConstraint =
  | {
      readonly kind: 'unique';
      readonly name: string;
      readonly columns: readonly string[];
      /** Made by CREATE UNIQUE INDEX: an index without a pg_constraint row, dropped by DROP INDEX. */
      readonly indexOnly?: boolean;
      /** NULLS NOT DISTINCT (PostgreSQL 15): NULLs collide like values. Absent: NULLs are distinct. */
      readonly nullsNotDistinct?: boolean;
      /**
       * DEFERRABLE: 'immediate' (INITIALLY IMMEDIATE) is checked at the end of each statement,
       * as every unique constraint here is; 'deferred' (INITIALLY DEFERRED) at COMMIT.
       * Absent: NOT DEFERRABLE.
       */
      readonly deferrable?: 'immediate' | 'deferred';
      /** CREATE UNIQUE INDEX … INCLUDE (…): carried, not part of the key. */
      readonly include?: readonly string[];
      /** CREATE UNIQUE INDEX's keys with their sort orders, when one has one (never an expression). */
      readonly keys?: readonly IndexKey[];
    }
  | {
      readonly kind: 'check';
      readonly name: string;
      readonly expr: string;
      /** The columns the expression reads (the binder fills them in): DROP COLUMN of one drops the constraint, as in PostgreSQL. */
      readonly columns?: readonly string[];
    }
  | {
      readonly kind: 'foreignKey';
      readonly name: string;
      readonly columns: readonly string[];
      readonly refNamespace: string;
      readonly refTable: string;
      readonly refColumns: readonly string[];
    }
  | {
      /** A plain index (CREATE INDEX): no uniqueness; scans use it to skip files (see src/lake/index-filter). */
      readonly kind: 'index';
      readonly name: string;
      readonly columns: readonly string[];
      /** The access method as written (btree, hash): shown by pg_get_indexdef; pruning is the same for both. */
      readonly method: string;
      /**
       * Every key as written, when one is an expression or has a sort order; `columns` then
       * lists the plain column keys alone (the ones value filters are built for: an
       * expression key prunes nothing).
       */
      readonly keys?: readonly IndexKey[];
      /** INCLUDE (…): carried, not searched. */
      readonly include?: readonly string[];
      /**
       * WHERE of a partial index, SQL text as written. The filters still cover every row (a
       * superset prunes correctly), so the predicate changes what is shown, not what is built.
       */
      readonly predicate?: string;
      /** The columns the key expressions and the predicate read: DROP COLUMN of one drops the index. */
      readonly expressionColumns?: readonly string[];
    };

/** One key of an index: a column, or an expression's SQL text, with its sort order. */
export interface IndexKey {
  readonly column?: string;
  readonly expr?: string;
  readonly descending?: boolean;
  /** NULLS FIRST (true) or LAST (false) as written; absent: the direction's default. */
  readonly nullsFirst?: boolean;
}

/** A column with its stable field id: renames keep the id, a dropped id is never reused. */
export interface ColumnMetadata extends ColumnDefinition {
  readonly fieldId: number;
  /**
   * A plain index (CREATE INDEX) covers the column: every data file written gets a value
   * filter over it (src/lake/stats/value-bloom.ts). Derived from the table's index
   * constraints when metadata is read (toTableMetadata); never stored.
   */
  readonly indexed?: boolean;
}

export interface TableMetadata {
  /** Stable and unique across the warehouse; also the table's pg_class oid (starts at 16384). */
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly ColumnMetadata[];
  readonly primaryKey: readonly string[];
  readonly partitionBy: readonly PartitionField[];
  readonly properties: Readonly<Record<string, string>>;
  readonly constraints: readonly TableConstraint[];
  readonly schemaId: number;
}

export type AlterTableChange =
  | { readonly kind: 'addColumn'; readonly column: ColumnDefinition; readonly ifNotExists?: boolean }
  | { readonly kind: 'dropColumn'; readonly name: string; readonly ifExists?: boolean }
  | {
      readonly kind: 'renameColumn';
      readonly from: string;
      readonly to: string;
      /** The new SQL text of each CHECK (by name) that reads the column, rewritten by the binder (src/lake parses no SQL). */
      readonly checkExprs?: Readonly<Record<string, string>>;
    }
  | {
      /** ALTER COLUMN: TYPE (widening only, see alter-column.ts), SET/DROP DEFAULT (null drops), SET/DROP NOT NULL. */
      readonly kind: 'alterColumn';
      readonly name: string;
      readonly type?: SqlType;
      readonly defaultExpr?: string | null;
      readonly nullable?: boolean;
    }
  | { readonly kind: 'renameTable'; readonly to: string }
  | { readonly kind: 'setProperties'; readonly properties: Readonly<Record<string, string>> }
  | { readonly kind: 'resetProperties'; readonly keys: readonly string[] }
  | { readonly kind: 'addConstraint'; readonly constraint: TableConstraint }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists?: boolean }
  | { readonly kind: 'renameConstraint'; readonly from: string; readonly to: string }
  /** ADD PRIMARY KEY (the table had none): a rewrite into the keyed layout (rewrite-table-layout.ts). */
  | { readonly kind: 'addPrimaryKey'; readonly columns: readonly string[] };
