import { FloeError } from '../../common/floe-error.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { isDecimalNumeric } from '../arrow/arrow-type.js';
import type { ColumnMetadata, TableMetadata } from './table-metadata.js';

/**
 * True when every value of `from` reads unchanged as `to` from files written as
 * `from` (the scan widens them: src/lake/arrow/widen-column-data.ts), so ALTER
 * COLUMN … TYPE needs no rewrite. Keys hash the same under both types (integers
 * and floats hash as 8-byte values, text as its bytes, numerics by unscaled value
 * at an unchanged scale: src/lake/bucket/key-serializer.ts).
 */
export function isWideningChange(from: SqlType, to: SqlType): boolean {
  const rank = { int2: 0, int4: 1, int8: 2 } as Record<string, number | undefined>;
  const rf = rank[from.kind];
  const rt = rank[to.kind];
  if (rf !== undefined && rt !== undefined) return rf <= rt;
  if ((from.kind === 'float4' || from.kind === 'float8') && to.kind === 'float8') return true;
  if (from.kind === 'float4' && to.kind === 'float4') return true;
  if (from.kind === 'numeric' && to.kind === 'numeric') {
    if (from.precision === undefined || to.precision === undefined) return from.precision === to.precision;
    // The same physical form (Decimal128, or text above 38 digits), the same scale.
    return isDecimalNumeric(from) === isDecimalNumeric(to) && (from.scale ?? 0) === (to.scale ?? 0) && to.precision >= from.precision;
  }
  const texty = (t: SqlType): boolean => t.kind === 'text' || t.kind === 'varchar';
  if (texty(from) && texty(to)) {
    const len = (t: SqlType): number => (t.kind === 'varchar' && t.length !== undefined ? t.length : Infinity);
    return len(to) >= len(from);
  }
  return false;
}

/** ALTER COLUMN TYPE / SET|DROP DEFAULT / SET|DROP NOT NULL on one column's metadata. */
export function alterColumnMetadata(
  t: TableMetadata | { readonly name: string; readonly primaryKey: readonly string[]; readonly partitionBy: TableMetadata['partitionBy'] },
  col: ColumnMetadata,
  change: { readonly type?: SqlType; readonly defaultExpr?: string | null; readonly nullable?: boolean },
): ColumnMetadata {
  let out: ColumnMetadata = col;
  if (change.type !== undefined) {
    if (t.partitionBy.some((p) => p.sourceColumn === col.name) && formatType(change.type) !== formatType(col.type)) {
      throw new FloeError(SqlState.featureNotSupported, `cannot alter type of a column used in the partition spec of table "${t.name}"`, {
        hint: 'Partition values are stored with the column\'s type; create a new table and copy the rows into it.',
      });
    }
    if (!isWideningChange(col.type, change.type)) {
      throw new FloeError(SqlState.featureNotSupported, `changing column "${col.name}" from ${formatType(col.type)} to ${formatType(change.type)} needs a rewrite, which is not supported`, {
        hint: 'Floe changes a column\'s type only where old files read unchanged: int2 → int4 → int8, float4 → float8, numeric(p,s) → numeric(p\',s) with p\' ≥ p, varchar(n) → varchar(m ≥ n) or text. Add a new column, UPDATE it from the old one, and drop the old one.',
      });
    }
    out = { ...out, type: change.type };
  }
  if (change.defaultExpr !== undefined) {
    const { defaultExpr: _dropped, ...rest } = out;
    out = change.defaultExpr === null ? rest : { ...rest, defaultExpr: change.defaultExpr };
  }
  if (change.nullable !== undefined) {
    if (change.nullable && t.primaryKey.includes(col.name)) {
      throw new FloeError('42P16', `column "${col.name}" is in a primary key`);
    }
    out = { ...out, nullable: change.nullable };
  }
  return out;
}
