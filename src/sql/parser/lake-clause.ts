import type { Node } from '@pgsql/types';

/**
 * Lakehouse syntax the PostgreSQL grammar does not know, recognised by the
 * extension pre-pass (src/sql/parser/lake-prepass.ts). Locations are 0-based
 * character offsets into the whole query string, like the parse tree's.
 */
export type LakeClause = TimeTravelClause | RefDdlClause | ShowTblPropertiesClause | PartitionSpecClause | OptimizerGroupDdlClause;

/**
 * `FOR SYSTEM_TIME AS OF e` / `TIMESTAMP AS OF e` (mode systemTime), `FOR SYSTEM_VERSION AS OF v` /
 * `VERSION AS OF v` (mode systemVersion), written right after the table name whose first token
 * starts at `tableLocation` (which is the RangeVar's location in the parse tree).
 */
export interface TimeTravelClause {
  readonly kind: 'timeTravel';
  readonly location: number;
  readonly tableLocation: number;
  readonly mode: 'systemTime' | 'systemVersion';
  /** The AS OF expression, parsed by PostgreSQL's grammar, locations pointing into the query string. */
  readonly expr: Node;
}

export interface QualifiedName {
  readonly schema?: string;
  readonly name: string;
  readonly location: number;
}

/** `ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] n [AS OF VERSION v] [RETAIN n DAYS|HOURS|MINUTES]` / `DROP BRANCH|TAG [IF EXISTS] n`. */
export interface RefDdlClause {
  readonly kind: 'refDdl';
  readonly location: number;
  readonly table: QualifiedName;
  readonly ifTableExists: boolean;
  readonly action:
    | {
        readonly kind: 'create';
        readonly refKind: 'branch' | 'tag';
        readonly name: string;
        readonly orReplace: boolean;
        readonly ifNotExists: boolean;
        readonly asOfVersion?: bigint;
        readonly retainMicros?: bigint;
      }
    | { readonly kind: 'drop'; readonly refKind: 'branch' | 'tag'; readonly name: string; readonly ifExists: boolean };
}

/** `SHOW TBLPROPERTIES t`. */
export interface ShowTblPropertiesClause {
  readonly kind: 'showTblProperties';
  readonly location: number;
  readonly table: QualifiedName;
}

/**
 * Floe's `PARTITION BY (day(ts), bucket(16, id), region)` (no strategy keyword), lifted out of a
 * CREATE TABLE so PostgreSQL's grammar sees a plain CREATE TABLE. `PARTITION BY RANGE|LIST|HASH (…)`
 * needs no lifting: PostgreSQL parses it and the binder reads its PartitionElems the same way.
 */
export interface PartitionSpecClause {
  readonly kind: 'partitionSpec';
  readonly location: number;
  /** Each element as an expression (ColumnRef or FuncCall), locations into the query string. */
  readonly elements: readonly Node[];
}

/**
 * `CREATE OPTIMIZER GROUP [IF NOT EXISTS] g [WITH (threads = n, scheduling_policy = 'quota')]`,
 * `ALTER OPTIMIZER GROUP g SET (…)`, `DROP OPTIMIZER GROUP [IF EXISTS] g`. Option values are
 * kept as written (text), keys lower-cased; src/lake's rules check them when binding.
 */
export interface OptimizerGroupDdlClause {
  readonly kind: 'optimizerGroupDdl';
  readonly location: number;
  readonly action: 'create' | 'alter' | 'drop';
  readonly name: string;
  /** IF NOT EXISTS (create) or IF EXISTS (drop). */
  readonly ifClause: boolean;
  readonly options: readonly { readonly key: string; readonly value: string; readonly location: number }[];
}
