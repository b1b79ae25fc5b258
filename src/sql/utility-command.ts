import type { ExplainOptions, LogicalPlan } from '../planner/index.js';
import type { SqlType } from '../common/sql-type.js';
import type { BoundStatement } from './bound-statement.js';
import type { ParsedStatement } from './parsed-statement.js';
import type { ResultColumn } from './result-column.js';
import type { TableName } from './ddl-command.js';

export type IsolationLevel = 'serializable' | 'repeatable read' | 'read committed' | 'read uncommitted';

export interface TransactionModes {
  readonly isolation?: IsolationLevel;
  readonly readOnly?: boolean;
  readonly deferrable?: boolean;
}

/** COPY options, defaults already applied as PostgreSQL applies them. */
export interface CopyOptions {
  readonly format: 'text' | 'csv' | 'binary';
  /** Column delimiter: tab for text, ',' for csv. */
  readonly delimiter: string;
  /** NULL marker: '\\N' for text, '' for csv. */
  readonly null: string;
  readonly header: boolean;
  readonly quote: string;
  readonly escape: string;
  readonly forceQuote: readonly string[] | 'all';
  readonly forceNotNull: readonly string[];
  readonly encoding?: string;
  /**
   * Floe's extension (COPY FROM only): rows are blind upserts by primary key, the
   * bulk spelling of INSERT … ON CONFLICT (pk) DO UPDATE SET c = EXCLUDED.c.
   */
  readonly upsert?: boolean;
}

/**
 * A one-row plan whose columns are the argument values (EXECUTE's parameters,
 * CALL's arguments): the session runs it and reads row 0.
 */
export interface ArgumentsPlan {
  readonly logical: LogicalPlan;
  readonly types: readonly SqlType[];
}

/** Statements the session carries out itself (transactions, settings, cursors, COPY, EXPLAIN, …). */
export type UtilityCommand =
  | { readonly kind: 'begin'; readonly modes: TransactionModes; /** Spelled START TRANSACTION, whose command tag says so. */ readonly start?: true }
  | { readonly kind: 'commit'; readonly chain: boolean }
  | { readonly kind: 'rollback'; readonly chain: boolean }
  | { readonly kind: 'savepoint'; readonly name: string }
  | { readonly kind: 'release'; readonly name: string }
  | { readonly kind: 'rollbackTo'; readonly name: string }
  /** SET [SESSION|LOCAL] name TO value; value null = DEFAULT. Names are lower-cased; TIME ZONE → timezone. */
  | { readonly kind: 'set'; readonly name: string; readonly value: string | null; readonly local: boolean }
  /** SET [SESSION CHARACTERISTICS AS] TRANSACTION …. */
  | { readonly kind: 'setTransaction'; readonly modes: TransactionModes; readonly session: boolean }
  | { readonly kind: 'reset'; readonly name: string | 'all' }
  /** SHOW name | SHOW ALL; names as PostgreSQL normalises them ("transaction isolation level" → transaction_isolation). */
  | { readonly kind: 'show'; readonly name: string | 'all' }
  | { readonly kind: 'showTblProperties'; readonly table: TableName }
  | { readonly kind: 'discard'; readonly target: 'all' | 'plans' | 'sequences' | 'temp' }
  | { readonly kind: 'deallocate'; readonly name: string | null /* null = ALL */ }
  | { readonly kind: 'prepare'; readonly name: string; readonly statement: ParsedStatement; readonly paramTypes: readonly SqlType[] }
  | { readonly kind: 'execute'; readonly name: string; readonly args: ArgumentsPlan }
  | {
      readonly kind: 'declareCursor';
      readonly name: string;
      readonly query: Extract<BoundStatement, { kind: 'query' }>;
      readonly binary: boolean;
      readonly scroll: boolean;
      readonly hold: boolean;
    }
  | {
      readonly kind: 'fetch';
      /** MOVE moves without returning rows. */
      readonly move: boolean;
      readonly cursor: string;
      readonly direction: 'forward' | 'backward' | 'absolute' | 'relative';
      /** Row count (or position for absolute/relative); 'all' for ALL. */
      readonly count: bigint | 'all';
    }
  | { readonly kind: 'closeCursor'; readonly name: string | null /* null = ALL */ }
  | {
      readonly kind: 'copyFrom';
      readonly table: TableName;
      /** Branch written through `t$branch_b`, else undefined (main). */
      readonly branch?: string;
      /** Target columns in input order, with their types. */
      readonly columns: readonly ResultColumn[];
      readonly source: 'stdin' | { readonly file: string };
      readonly options: CopyOptions;
    }
  | {
      readonly kind: 'copyTo';
      /** The rows to write, from `COPY t TO` or `COPY (query) TO`. */
      readonly query: Extract<BoundStatement, { kind: 'query' }>;
      readonly target: 'stdout' | { readonly file: string };
      readonly options: CopyOptions;
    }
  | {
      readonly kind: 'explain';
      readonly analyze: boolean;
      readonly verbose: boolean;
      /** Every option given, validated as PostgreSQL does. */
      readonly options: ExplainOptions;
      /** The statement explained; the session plans it as it would to run it. */
      readonly statement: BoundStatement;
    }
  | {
      readonly kind: 'call';
      readonly procedure: string;
      readonly args: ArgumentsPlan;
      /** Per argument: its name when written `name => value`. */
      readonly argNames?: readonly (string | undefined)[];
    }
  | { readonly kind: 'listen'; readonly channel: string }
  | { readonly kind: 'unlisten'; readonly channel: string | null }
  | { readonly kind: 'notify'; readonly channel: string; readonly payload: string | null }
  /** VACUUM / ANALYZE / CHECKPOINT and similar maintenance: accepted and answered with the tag. */
  /** A statement with nothing to do; `notices` are sent first (DROP … IF EXISTS of a missing object). */
  | { readonly kind: 'noop'; readonly tag: string; readonly notices?: readonly string[] }
  /** LOCK TABLE … IN ACCESS SHARE MODE (bind-lock.ts): needs a transaction block, holds nothing. */
  | { readonly kind: 'lockTable'; readonly tables: readonly TableName[] }
  /** SET CONSTRAINTS ALL | name, … DEFERRED | IMMEDIATE; names as written (the session finds their tables). */
  | { readonly kind: 'setConstraints'; readonly names: 'all' | readonly { readonly schema?: string; readonly name: string }[]; readonly deferred: boolean };
