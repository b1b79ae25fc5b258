import type { Node } from '@pgsql/types';
import type { LakeClause } from './parser/lake-clause.js';

/**
 * One statement of a query string: PostgreSQL's raw parse node plus what the
 * lakehouse extension pre-pass found in its text. The binder reads both.
 */
export interface ParsedStatement {
  /** The statement's own text (a slice of the query string, without the trailing ';'). */
  readonly text: string;
  /** 0-based offset of `text` in the whole query string; node locations are relative to the whole string. */
  readonly location: number;
  /** libpg-query's raw parse tree for this statement (node locations are offsets into the query string). */
  readonly ast: Node;
  /** Lakehouse clauses lifted out of the text before PostgreSQL's grammar saw it (time travel, branch/tag DDL, …). */
  readonly lake: readonly LakeClause[];
  /** The whole query string the statement came from, so positions in errors can be computed. */
  readonly source: string;
  /**
   * COMMIT, ROLLBACK [TO SAVEPOINT] or a prepared transaction's end: the statements a
   * failed transaction block still accepts. The session asks this rather than read `ast`.
   */
  readonly isTransactionEnd: boolean;
}
