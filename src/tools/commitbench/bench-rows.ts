/**
 * The rows every engine gets, derived from the key alone so any engine's answer can be
 * checked without keeping a model: a loaded row is (id, 3·id, 'r<id>'); an upserted one
 * (id, -id, 'u<id>').
 */
export interface BenchRow {
  readonly id: number;
  readonly v: number;
  readonly s: string;
}

export const loadedRow = (id: number): BenchRow => ({ id, v: 3 * id, s: `r${id}` });
export const upsertedRow = (id: number): BenchRow => ({ id, v: -id, s: `u${id}` });

/** The keyed table every measure uses: `id bigint` primary key, `v bigint`, `s text`. */
export function createTableSql(table: string, properties: Readonly<Record<string, string>> = {}): string {
  const props = Object.entries(properties).map(([k, v]) => `'${k}' = '${v}'`).join(', ');
  return `CREATE TABLE ${table} (id bigint PRIMARY KEY, v bigint, s text)${props === '' ? '' : ` WITH (${props})`}`;
}

/** COPY text (tab-separated, one line per row) of the loaded rows for keys [from, to). */
export function copyText(from: number, to: number): string {
  const lines: string[] = [];
  for (let id = from; id < to; id++) {
    const r = loadedRow(id);
    lines.push(`${r.id}\t${r.v}\t${r.s}\n`);
  }
  return lines.join('');
}

/** A multi-row INSERT of `rows`; with `upsert`, replacing the rows whose key exists (PostgreSQL's and DuckDB's syntax alike). */
export function insertSql(table: string, rows: readonly BenchRow[], upsert = false): string {
  const values = rows.map((r) => `(${r.id}, ${r.v}, '${r.s}')`).join(', ');
  return `INSERT INTO ${table} (id, v, s) VALUES ${values}${upsert ? ' ON CONFLICT (id) DO UPDATE SET v = excluded.v, s = excluded.s' : ''}`;
}

/** Deterministic pseudo-random numbers in [0, 1), so every engine is asked for the same keys. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    s = (s ^ (s >>> 12)) >>> 0;
    return s / 4294967296;
  };
}
