/**
 * Ternary logic partitioning (SQLancer's TLP): for any predicate p, every row
 * of a table satisfies exactly one of p, NOT p and p IS NULL, so the three
 * filtered queries together must return the table's rows exactly.
 */
export interface TlpQueries {
  readonly table: string;
  readonly whole: string;
  /** WHERE p, WHERE NOT p, WHERE p IS NULL — in that order. */
  readonly parts: readonly [string, string, string];
}

export function buildTlpQueries(table: string, predicate: string): TlpQueries {
  const base = `SELECT * FROM ${table}`;
  return {
    table,
    whole: base,
    parts: [
      `${base} WHERE ${predicate}`,
      `${base} WHERE NOT (${predicate})`,
      `${base} WHERE (${predicate}) IS NULL`,
    ],
  };
}

export type Row = readonly (string | null)[];

/** A canonical, order-free form of a bag of rows. */
export function rowBag(rows: readonly Row[]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

/**
 * Rows the parts return that the whole does not (`extra`) and rows of the whole
 * no part returns (`missing`), as bags; both empty when the partition holds.
 */
export function tlpMismatch(whole: readonly Row[], parts: readonly (readonly Row[])[]): { missing: string[]; extra: string[] } {
  const counts = new Map<string, number>();
  for (const r of rowBag(whole)) counts.set(r, (counts.get(r) ?? 0) + 1);
  const extra: string[] = [];
  for (const part of parts) {
    for (const r of rowBag(part)) {
      const n = counts.get(r) ?? 0;
      if (n === 0) extra.push(r);
      else counts.set(r, n - 1);
    }
  }
  const missing: string[] = [];
  for (const [r, n] of counts) for (let i = 0; i < n; i++) missing.push(r);
  return { missing: missing.sort(), extra: extra.sort() };
}
