import type { Prng } from './prng.js';
import type { Feature } from './features.js';
import type { ColumnModel, TableModel } from './schema-model.js';
import { isIntegral, isTextual } from './schema-model.js';
import { randomValue } from './values.js';

type ExprKind = 'int' | 'text' | 'date';

function kindOf(c: ColumnModel): ExprKind {
  return isIntegral(c) ? 'int' : isTextual(c) ? 'text' : 'date';
}

/**
 * Random boolean predicates over a table's columns: comparisons, AND/OR/NOT,
 * IS NULL, IN lists, BETWEEN, LIKE, arithmetic, CASE and COALESCE. Arithmetic is
 * kept inside bigint's range (int columns are widened first) so that no row can
 * raise an error whose appearance would depend on evaluation order.
 */
export class PredicateGenerator {
  constructor(
    private readonly rng: Prng,
    private readonly table: TableModel,
    private readonly features: ReadonlySet<Feature>,
  ) {}

  predicate(depth = 2): string {
    const r = this.rng;
    if (depth > 0 && r.chance(0.35)) {
      switch (r.int(0, 2)) {
        case 0: return `(${this.predicate(depth - 1)} AND ${this.predicate(depth - 1)})`;
        case 1: return `(${this.predicate(depth - 1)} OR ${this.predicate(depth - 1)})`;
        default: return `(NOT ${this.predicate(depth - 1)})`;
      }
    }
    const col = r.pick(this.table.columns);
    const k = kindOf(col);
    switch (r.int(0, 7)) {
      case 0: return `(${col.name} IS ${r.chance(0.5) ? '' : 'NOT '}NULL)`;
      case 1: {
        const list = Array.from({ length: r.int(1, 4) }, () => this.literal(col, true));
        return `(${this.expr(k, depth, col)} ${r.chance(0.2) ? 'NOT ' : ''}IN (${list.join(', ')}))`;
      }
      case 2: return `(${this.expr(k, depth, col)} ${r.chance(0.2) ? 'NOT ' : ''}BETWEEN ${this.literal(col, false)} AND ${this.literal(col, false)})`;
      case 3:
        if (isTextual(col)) return `(${col.name} ${r.chance(0.2) ? 'NOT ' : ''}LIKE '${r.pick(['a%', '%b%', '_', '%', 'k_', "%''%", 'x%', '%1'])}')`;
        return this.comparison(k, depth, col);
      case 4: return `(CASE WHEN ${this.predicate(0)} THEN ${this.boolConst()} ELSE ${this.comparison(k, 0, col)} END)`;
      default: return this.comparison(k, depth, col);
    }
  }

  private boolConst(): string {
    return this.rng.pick(['TRUE', 'FALSE', 'NULL::boolean']);
  }

  private comparison(k: ExprKind, depth: number, col: ColumnModel): string {
    const op = this.rng.pick(['=', '<>', '<', '<=', '>', '>=']);
    return `(${this.expr(k, depth, col)} ${op} ${this.rng.chance(0.3) ? this.expr(k, 0) : this.literal(col, true)})`;
  }

  private literal(col: ColumnModel, allowNull: boolean): string {
    const quiet = new Set([...this.features].filter((f) => f !== 'intOverflow' && f !== 'invalidDates' && f !== 'varcharOverflow'));
    // Comparing against a varchar literal: the literal may be longer than the column; that is legal.
    return randomValue(this.rng, col.type === 'varchar' ? { ...col, type: 'text' } : col, quiet, { allowNull }).sql;
  }

  /** An expression of a kind, mostly a column (`prefer`) of that kind. */
  expr(k: ExprKind, depth: number, prefer?: ColumnModel): string {
    const r = this.rng;
    const cols = this.table.columns.filter((c) => kindOf(c) === k);
    const col = prefer !== undefined && r.chance(0.7) ? prefer : cols.length > 0 ? r.pick(cols) : undefined;
    const leaf = col !== undefined ? col.name : k === 'int' ? '7' : k === 'text' ? "'t'" : "DATE '2024-01-10'";
    if (depth <= 0 || r.chance(0.55)) return leaf;
    switch (k) {
      case 'int': {
        const wide = col?.type === 'int' ? `CAST(${leaf} AS bigint)` : leaf;
        switch (r.int(0, 4)) {
          case 0: return col?.type === 'int' ? `(${wide} + ${r.int(-3, 3)})` : `(${wide} / ${r.int(2, 9)})`;
          case 1: return col?.type === 'int' ? `(${wide} * ${r.int(-3, 3)})` : `(${wide} % ${r.int(2, 9)})`;
          case 2: return `COALESCE(${leaf}, ${r.int(-2, 9)})`;
          case 3: return `(CASE WHEN ${this.predicate(0)} THEN ${leaf} ELSE ${r.int(0, 9)} END)`;
          default: return col?.type === 'int' ? `(-${wide})` : `(${wide} / ${r.int(2, 9)})`;
        }
      }
      case 'text':
        switch (r.int(0, 2)) {
          case 0: return `COALESCE(${leaf}, '${r.pick(['a', 'zz', ''])}')`;
          case 1: return `(${leaf} || '${r.pick(['x', ' ', 'é'])}')`;
          default: return `(CASE WHEN ${this.predicate(0)} THEN ${leaf} ELSE 'k' END)`;
        }
      case 'date':
        switch (r.int(0, 1)) {
          case 0: return `(${leaf} + ${r.int(-5, 30)})`;
          default: return `COALESCE(${leaf}, DATE '2024-01-15')`;
        }
    }
  }
}
