import type { TextResult } from '../../src/tools/tpch/wire-query.js';

export type { TextResult };

const FLOAT_OIDS = new Set([700, 701]);

/**
 * Compares a Floe result with PostgreSQL's: the same column names and types, and the same
 * rows, in order when the query orders them, as a multiset otherwise. Values compare as
 * PostgreSQL's text output, exactly, except float4/float8, where a relative 1e-9 is
 * allowed because PostgreSQL's own float sums depend on evaluation order.
 * Returns a description of the first difference, or undefined when they match.
 */
export function compareResults(expected: TextResult, actual: TextResult, ordered: boolean): string | undefined {
  const ecols = expected.columns.map((c) => `${c.name}:${c.typeOid}`).join(', ');
  const acols = actual.columns.map((c) => `${c.name}:${c.typeOid}`).join(', ');
  if (ecols !== acols) return `columns differ: PostgreSQL (${ecols}), Floe (${acols})`;
  if (expected.rows.length !== actual.rows.length) {
    return `row count differs: PostgreSQL ${expected.rows.length}, Floe ${actual.rows.length}` +
      `${firstRows('PostgreSQL', expected.rows)}${firstRows('Floe', actual.rows)}`;
  }
  const floatCols = expected.columns.map((c) => FLOAT_OIDS.has(c.typeOid));
  const e = ordered ? expected.rows : sortRows(expected.rows);
  const a = ordered ? actual.rows : sortRows(actual.rows);
  for (let i = 0; i < e.length; i++) {
    for (let c = 0; c < floatCols.length; c++) {
      if (!valuesEqual(e[i]![c]!, a[i]![c]!, floatCols[c]!)) {
        return `row ${i + 1}, column ${expected.columns[c]!.name}: PostgreSQL ${JSON.stringify(e[i]![c])}, Floe ${JSON.stringify(a[i]![c])}` +
          `\n  PostgreSQL row: ${JSON.stringify(e[i])}\n  Floe row:       ${JSON.stringify(a[i])}`;
      }
    }
  }
  return undefined;
}

function valuesEqual(e: string | null, a: string | null, isFloat: boolean): boolean {
  if (e === a) return true;
  if (e === null || a === null || !isFloat) return false;
  const x = Number(e);
  const y = Number(a);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

function sortRows(rows: readonly (readonly (string | null)[])[]): (readonly (string | null)[])[] {
  return [...rows].sort((x, y) => {
    const a = JSON.stringify(x);
    const b = JSON.stringify(y);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

function firstRows(label: string, rows: readonly (readonly (string | null)[])[]): string {
  return rows.length === 0 ? `\n  ${label}: no rows` : `\n  ${label} first row: ${JSON.stringify(rows[0])}`;
}
