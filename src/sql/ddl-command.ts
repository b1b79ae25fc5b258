import type { SqlType } from '../common/sql-type.js';
import type { TableConstraint } from '../lake/index.js';

/** A partition field as src/lake's PartitionField spells it (src/lake/partition/partition-transform.ts). */
export interface PartitionFieldSpec {
  readonly sourceColumn: string;
  readonly transform:
    | { readonly kind: 'identity' }
    | { readonly kind: 'year' | 'month' | 'day' | 'hour' }
    | { readonly kind: 'truncate'; readonly width: number }
    | { readonly kind: 'bucket'; readonly buckets: number };
  /** Partition field name: the column for identity, else `<column>_<transform>` (Iceberg's convention). */
  readonly name: string;
}

export interface ColumnSpec {
  readonly name: string;
  readonly type: SqlType;
  readonly nullable: boolean;
  /** DEFAULT as SQL text (checked by binding it at CREATE time). */
  readonly defaultExpr?: string;
}

/** A table name as resolved against search_path (namespace is always filled in). */
export interface TableName {
  readonly namespace: string;
  readonly name: string;
}

export type AlterTableAction =
  | {
      readonly kind: 'addColumn';
      readonly column: ColumnSpec;
      readonly ifNotExists: boolean;
      /** CHECK / REFERENCES written on the column, added with it. */
      readonly constraints?: readonly TableConstraint[];
    }
  | { readonly kind: 'dropColumn'; readonly name: string; readonly ifExists: boolean }
  | {
      readonly kind: 'renameColumn';
      readonly from: string;
      readonly to: string;
      /** The rewritten text of each CHECK that reads the column, by constraint name. */
      readonly checkExprs?: Readonly<Record<string, string>>;
    }
  | {
      /** ALTER COLUMN … TYPE, SET/DROP DEFAULT (defaultExpr null drops it), SET/DROP NOT NULL. */
      readonly kind: 'alterColumn';
      readonly name: string;
      readonly type?: SqlType;
      readonly defaultExpr?: string | null;
      readonly nullable?: boolean;
    }
  | { readonly kind: 'addConstraint'; readonly constraint: TableConstraint }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists: boolean }
  | { readonly kind: 'renameTable'; readonly to: string }
  | { readonly kind: 'setProperties'; readonly properties: Readonly<Record<string, string>> }
  | { readonly kind: 'resetProperties'; readonly keys: readonly string[] }
  | {
      readonly kind: 'createRef';
      readonly refKind: 'branch' | 'tag';
      readonly name: string;
      readonly orReplace: boolean;
      readonly ifNotExists: boolean;
      /** AS OF VERSION n: the snapshot to start from (else the current main head). */
      readonly fromSnapshot?: bigint;
      /** RETAIN n DAYS|HOURS|MINUTES, in microseconds. */
      readonly retainMicros?: bigint;
    }
  | { readonly kind: 'dropRef'; readonly refKind: 'branch' | 'tag'; readonly name: string; readonly ifExists: boolean };

/** Schema-changing statements; the session runs them against src/lake. */
export type DdlCommand =
  | { readonly kind: 'createSchema'; readonly name: string; readonly ifNotExists: boolean }
  | { readonly kind: 'dropSchema'; readonly names: readonly string[]; readonly ifExists: boolean; readonly cascade: boolean }
  | {
      readonly kind: 'createTable';
      readonly table: TableName;
      readonly ifNotExists: boolean;
      readonly columns: readonly ColumnSpec[];
      readonly primaryKey: readonly string[];
      readonly partitionBy: readonly PartitionFieldSpec[];
      /** WITH (key = value, …): keys lower-cased, values as text; validated by src/lake. */
      readonly properties: Readonly<Record<string, string>>;
      /** CHECK and FOREIGN KEY constraints, named. */
      readonly constraints?: readonly TableConstraint[];
    }
  | { readonly kind: 'dropTable'; readonly tables: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean }
  | {
      readonly kind: 'alterTable';
      readonly table: TableName;
      readonly ifExists: boolean;
      readonly actions: readonly AlterTableAction[];
    };
