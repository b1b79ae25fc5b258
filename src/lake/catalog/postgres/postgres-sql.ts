/**
 * The catalog's statements (written once, in the SQL SQLite and PostgreSQL share:
 * catalog-database.ts) as PostgreSQL takes them: `?` parameters numbered, and the one
 * SQLite table function the catalog uses, json_each over a JSON array of ids, as
 * jsonb_array_elements_text.
 */
export function toPostgresSql(sql: string): string {
  return numberParameters(sql.replaceAll('SELECT value FROM json_each(?)', 'SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text(CAST(? AS JSONB)) AS value'));
}

/** `?` → `$1`, `$2`, … outside quoted literals and identifiers. */
function numberParameters(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Whether a statement changes rows (its row count is a change count; a SELECT's is the rows it returned). */
export function isWriteStatement(sql: string): boolean {
  return /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql);
}
