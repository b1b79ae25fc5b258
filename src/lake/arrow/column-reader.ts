import type { Vector } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnAccessor } from '../bucket/column-accessor.js';

export function columnReader(vector: Vector, type: SqlType): ColumnAccessor {
  void vector; void type;
  throw new Error('not implemented');
}
