import { Field, List, Utf8 } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { arrowTypeOf } from '../../lake/index.js';

/**
 * The Arrow type the executor uses for a SqlType in the batches it produces.
 * Same mapping as src/lake/arrow/arrow-type.ts (so scans and operators agree),
 * except numeric: operator output always carries numeric as Utf8 text (the
 * canonical form), because intermediate results have no fixed precision.
 * Readers (vector-values.ts) accept Decimal128 from scans as well.
 */
export function execArrowType(type: SqlType): DataType {
  if (type.kind === 'numeric') return new Utf8();
  if (type.kind === 'array') return new List(new Field('element', execArrowType(type.element), true));
  return arrowTypeOf(type);
}
