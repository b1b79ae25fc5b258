import type { SqlType } from '../common/sql-type.js';
import type { AlterTableChange, OptimizerGroup, SchedulingPolicy, SequenceOptions, TableConstraint } from '../lake/index.js';

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
  /** serial / bigserial / smallserial, or GENERATED … AS IDENTITY: the table owns a sequence made with it. */
  readonly sequence?: { readonly kind: 'serial' | 'always' | 'byDefault'; readonly options: SequenceOptions };
}

/** OWNED BY table.column. */
export interface SequenceOwnerSpec {
  readonly table: TableName;
  readonly column: string;
}

/** UNIQUE (a, b) as written; an unnamed one is named by the session as PostgreSQL names it (`t_a_b_key`). */
export interface UniqueSpec {
  readonly name?: string;
  readonly columns: readonly string[];
  readonly nullsNotDistinct: boolean;
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
  // RENAME COLUMN (with the CHECK texts it rewrites) and ALTER COLUMN as src/lake applies them.
  | Extract<AlterTableChange, { kind: 'renameColumn' | 'alterColumn' }>
  | { readonly kind: 'addConstraint'; readonly constraint: TableConstraint }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists: boolean }
  | { readonly kind: 'renameTable'; readonly to: string }
  | { readonly kind: 'setProperties'; readonly properties: Readonly<Record<string, string>> }
  | { readonly kind: 'resetProperties'; readonly keys: readonly string[] }
  | { readonly kind: 'addUnique'; readonly spec: UniqueSpec }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists: boolean }
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
      /** UNIQUE column and table constraints. */
      readonly unique?: readonly UniqueSpec[];
      /** CHECK and FOREIGN KEY constraints, named. */
      readonly constraints?: readonly TableConstraint[];
    }
  | {
      readonly kind: 'createSequence';
      readonly sequence: TableName;
      readonly ifNotExists: boolean;
      readonly options: SequenceOptions;
      readonly ownedBy?: SequenceOwnerSpec;
    }
  | {
      readonly kind: 'alterSequence';
      readonly sequence: TableName;
      readonly ifExists: boolean;
      readonly options: SequenceOptions;
      /** OWNED BY t.c, or null for OWNED BY NONE. */
      readonly ownedBy?: SequenceOwnerSpec | null;
      readonly rename?: string;
    }
  | { readonly kind: 'dropSequence'; readonly sequences: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean }
  | { readonly kind: 'dropTable'; readonly tables: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean; /** As the statement spelled them, for messages. */ readonly writtenNames?: readonly string[] }
  | {
      readonly kind: 'alterTable';
      readonly table: TableName;
      readonly ifExists: boolean;
      readonly actions: readonly AlterTableAction[];
    }
  | {
      /** CREATE [UNIQUE] INDEX; a plain index is accepted and not built (scans prune by file statistics). */
      readonly kind: 'createIndex';
      readonly table: TableName;
      readonly name?: string;
      readonly columns: readonly string[];
      readonly unique: boolean;
      readonly nullsNotDistinct: boolean;
      readonly ifNotExists: boolean;
    }
  | { readonly kind: 'dropIndex'; readonly names: readonly { readonly schema?: string; readonly name: string }[]; readonly ifExists: boolean }
  | OptimizerGroupDdl;

/** CREATE / ALTER / DROP OPTIMIZER GROUP, options checked by src/lake's rules (CREATE's defaults: 1 thread, quota). */
export type OptimizerGroupDdl =
  | { readonly kind: 'createOptimizerGroup'; readonly group: OptimizerGroup; readonly ifNotExists: boolean }
  | { readonly kind: 'alterOptimizerGroup'; readonly name: string; readonly change: { readonly threads?: number; readonly schedulingPolicy?: SchedulingPolicy } }
  | { readonly kind: 'dropOptimizerGroup'; readonly name: string; readonly ifExists: boolean };
