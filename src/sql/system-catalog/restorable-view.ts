/**
 * Whether the session is pg_dump, which always names itself (application_name
 * "pg_dump"). pg_dump copies catalog text into a script that PostgreSQL 15 must
 * restore, so it is shown the catalogs in PostgreSQL 15's terms where Floe says more
 * than PostgreSQL 15 can read back:
 * - no Floe table properties in pg_class.reloptions (PostgreSQL refuses unknown
 *   storage parameters; `SHOW TBLPROPERTIES t` still lists them);
 * - foreign keys NOT VALID instead of NOT ENFORCED (PostgreSQL 18's spelling): Floe
 *   never checked the rows, and NOT VALID restores them without checking either.
 * Keyed tables come out as their PRIMARY KEY constraint; partition specs are not part
 * of PostgreSQL's table definition and are left out. Every other client sees Floe's view.
 */
export function isRestoreView(settings: ReadonlyMap<string, string>): boolean {
  return settings.get('application_name') === 'pg_dump';
}
