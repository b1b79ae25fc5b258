/** A value as a SQL literal both Floe and DuckDB read the same way (numbers bare, text quoted). */
export function sqlLiteral(v: string | number | null): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return String(v);
  return `'${v.replace(/'/g, "''")}'`;
}

/** `(a, b, c)` of literals. */
export function sqlTuple(values: readonly (string | number | null)[]): string {
  return `(${values.map(sqlLiteral).join(', ')})`;
}
