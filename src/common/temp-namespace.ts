/** The alias PostgreSQL gives the session's own temporary schema in search_path and qualified names. */
export const TEMP_SCHEMA_ALIAS = 'pg_temp';

/** `pg_temp` or a session's `pg_temp_N`. */
export function isTempNamespaceName(name: string): boolean {
  return name === TEMP_SCHEMA_ALIAS || /^pg_temp_\d+$/.test(name);
}

/** The session's temporary schema, `pg_temp_N` (N: the backend's process id). */
export function tempNamespaceName(processId: number): string {
  return `${TEMP_SCHEMA_ALIAS}_${processId}`;
}

/**
 * search_path as PostgreSQL searches it for relations: `pg_temp` stands for the session's
 * temporary schema, which is searched first (before pg_catalog) when the path does not name
 * it. A session without one yet drops the alias. Other sessions' `pg_temp_N` never resolve.
 */
export function withTempNamespace(path: readonly string[], temp: string | undefined): string[] {
  const named = temp === undefined ? -1 : path.findIndex((s) => s === TEMP_SCHEMA_ALIAS || s === temp);
  const out = path.flatMap((s, i) => (i === named ? [temp!] : isTempNamespaceName(s) ? [] : [s]));
  return temp !== undefined && named < 0 ? [temp, ...out] : out;
}
