/**
 * A statement's kind for metrics labels, from the first word of its command tag: a fixed,
 * small set, so label cardinality stays bounded whatever clients send.
 */
export const STATEMENT_KINDS = ['select', 'insert', 'update', 'delete', 'merge', 'copy', 'call', 'ddl', 'transaction', 'utility'] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];

const BY_TAG_WORD: Readonly<Record<string, StatementKind>> = {
  SELECT: 'select', FETCH: 'select', MOVE: 'select',
  INSERT: 'insert', UPDATE: 'update', DELETE: 'delete', MERGE: 'merge', COPY: 'copy', CALL: 'call',
  CREATE: 'ddl', ALTER: 'ddl', DROP: 'ddl', TRUNCATE: 'ddl', COMMENT: 'ddl',
  BEGIN: 'transaction', START: 'transaction', COMMIT: 'transaction', ROLLBACK: 'transaction', SAVEPOINT: 'transaction', RELEASE: 'transaction',
};

export function statementKind(commandTag: string): StatementKind {
  const word = /^[A-Z_]+/.exec(commandTag)?.[0] ?? '';
  return BY_TAG_WORD[word] ?? 'utility';
}

/** The SQLSTATE's class (its first two characters), the bounded label of errors. */
export function sqlstateClass(sqlstate: string): string {
  return /^[0-9A-Z]{5}$/.test(sqlstate) ? sqlstate.slice(0, 2) : 'XX';
}
