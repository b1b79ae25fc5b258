import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';

export interface BatchColumn {
  readonly name: string;
  readonly type: SqlType;
  readonly fieldId: number;
  readonly nullable: boolean;
}

export function buildBatch(columns: readonly BatchColumn[], values: readonly (readonly unknown[])[]): RecordBatch {
  void columns; void values;
  throw new Error('not implemented');
}
