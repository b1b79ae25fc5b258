import type { ColumnDescription } from '../session-handler.js';

export interface RowDescription {
  readonly kind: 'RowDescription';
  readonly columns: readonly ColumnDescription[];
  /** Per column: 0 text, 1 binary (Describe of a statement reports 0). */
  readonly formats: readonly number[];
}

export interface DataRow {
  readonly kind: 'DataRow';
  readonly values: readonly (Uint8Array | null)[];
}
