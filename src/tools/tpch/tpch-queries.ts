import { readFileSync } from 'node:fs';

export interface TpchQuery {
  /** 1..22 */
  readonly number: number;
  readonly name: string;
  /** PostgreSQL-dialect text with the specification's validation parameters. */
  readonly sql: string;
  /** Whether the outermost query has ORDER BY (otherwise rows compare as a multiset). */
  readonly ordered: boolean;
}

const UNORDERED = new Set([6, 14, 17, 19]);

export interface TpchQueryOptions {
  /**
   * Q11's FRACTION. Default 0.0001 / SF (clause 2.4.11.3); below SF 0.1 that selects no
   * rows at all, so a correctness check passes the SF 1 validation value 0.0001 instead.
   */
  readonly q11Fraction?: number;
}

/** The 22 queries with the specification's validation parameters (Q11's fraction per `opts`). */
export function tpchQueries(sf = 1, opts: TpchQueryOptions = {}): TpchQuery[] {
  const out: TpchQuery[] = [];
  for (let n = 1; n <= 22; n++) {
    const name = `q${String(n).padStart(2, '0')}`;
    let sql = readFileSync(new URL(`./queries/${name}.sql`, import.meta.url), 'utf8')
      .split('\n').filter((l) => !l.startsWith('--')).join('\n').trim();
    if (n === 11) sql = sql.replace('* 0.0001', `* ${fractionText(opts.q11Fraction ?? 0.0001 / sf)}`);
    out.push({ number: n, name, sql, ordered: !UNORDERED.has(n) });
  }
  return out;
}

function fractionText(f: number): string {
  // Plain decimal notation: "1e-7" would be a float8 literal, not numeric.
  return f.toFixed(12).replace(/0+$/, '').replace(/\.$/, '.0');
}
