import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';

export interface ColumnStats {
  readonly min: unknown;
  readonly max: unknown;
  readonly nullCount: number;
}

export type StatPredicate =
  | { readonly op: '=' | '<' | '<=' | '>' | '>=' | '<>'; readonly value: unknown }
  | { readonly op: 'in'; readonly values: readonly unknown[] }
  | { readonly op: 'isNull' | 'isNotNull' };

export function computeColumnStats(batch: RecordBatch, columns: readonly { name: string; type: SqlType }[]): Record<string, ColumnStats> {
  void batch; void columns;
  throw new Error('not implemented');
}

export function encodeStatValue(type: SqlType, value: unknown): unknown {
  void type; void value;
  throw new Error('not implemented');
}

export function decodeStatValue(type: SqlType, value: unknown): unknown {
  void type; void value;
  throw new Error('not implemented');
}

export function statsMayMatch(stats: ColumnStats, type: SqlType, predicate: StatPredicate, rowCount?: number): boolean {
  void stats; void type; void predicate; void rowCount;
  throw new Error('not implemented');
}
