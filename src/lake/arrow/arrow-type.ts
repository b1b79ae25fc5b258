import type { DataType, Field } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';

export function arrowTypeOf(type: SqlType): DataType {
  void type;
  throw new Error('not implemented');
}

export function arrowFieldOf(column: { name: string; type: SqlType; fieldId: number; nullable: boolean }): Field {
  void column;
  throw new Error('not implemented');
}

export function sqlTypeOfField(field: Field): SqlType {
  void field;
  throw new Error('not implemented');
}
