/** Commands whose CommandComplete tag ends with the rows they returned or changed ("INSERT 0 5", "UPDATE 3", "COPY 10"). */
const COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'SELECT', 'COPY', 'FETCH', 'MOVE']);

/**
 * The rows a command tag reports, 0 for a command without a count (CREATE TABLE, SET): what
 * PostgreSQL counts as a statement's rows (pg_stat_statements.rows is this number).
 */
export function commandTagRows(tag: string): number {
  const words = tag.split(' ');
  if (words.length < 2 || !COUNTING_COMMANDS.has(words[0]!)) return 0;
  const n = Number(words[words.length - 1]);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}
