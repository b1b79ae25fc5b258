import type { SqlType } from '../../common/sql-type.js';

export type PartitionTransform =
  | { readonly kind: 'identity' }
  | { readonly kind: 'year' | 'month' | 'day' | 'hour' }
  | { readonly kind: 'truncate'; readonly width: number }
  | { readonly kind: 'bucket'; readonly buckets: number };

export interface PartitionField {
  readonly sourceColumn: string;
  readonly transform: PartitionTransform;
  readonly name: string;
}

export type PartitionPredicate =
  | { readonly op: '=' | '<' | '<=' | '>' | '>='; readonly value: unknown }
  | { readonly op: 'in'; readonly values: readonly unknown[] };

export function applyTransform(transform: PartitionTransform, type: SqlType, value: unknown): unknown {
  void transform; void type; void value;
  throw new Error('not implemented');
}

export function partitionKeyOf(fields: readonly PartitionField[], rowValues: readonly unknown[]): string {
  void fields; void rowValues;
  throw new Error('not implemented');
}

export function transformResultType(transform: PartitionTransform, sourceType: SqlType): SqlType {
  void transform; void sourceType;
  throw new Error('not implemented');
}

export function mayMatch(transform: PartitionTransform, sourceType: SqlType, partitionValue: unknown, predicate: PartitionPredicate): boolean {
  void transform; void sourceType; void partitionValue; void predicate;
  throw new Error('not implemented');
}
