import type { SqlType } from '../../common/sql-type.js';
import { optimizingSettings } from './optimizing-properties.js';
import type { ColumnMetadata, TableMetadata } from './table-metadata.js';

/**
 * How a table's columns are named inside data files. Parquet columns are named by
 * field id ("c<id>"), not by SQL name, so renaming a column never touches a file and a
 * dropped-then-re-added name never resurrects old data.
 */
export const OP_COLUMN = '_op';
export const SEQ_FILE_COLUMN = '_seq';
/** Tiered change files: the snapshot of the commit that wrote each row (FileRecord.snapshots). */
export const SNAPSHOT_FILE_COLUMN = '_snapshot';
/**
 * Tiered change files: each row's offset within its transaction (-1: not known, a row of a
 * tiered file written before the column existed). key-moves.ts pairs a key change's rows by it.
 */
export const OFFSET_FILE_COLUMN = '_offset';

export function physicalName(fieldId: number): string {
  return `c${fieldId}`;
}

export function isKeyed(table: TableMetadata): boolean {
  return table.primaryKey.length > 0;
}

export function keyColumnsOf(table: { columns: readonly ColumnMetadata[]; primaryKey: readonly string[] }): ColumnMetadata[] {
  return table.primaryKey.map((k) => table.columns.find((c) => c.name === k)!);
}

export function keyTypesOf(table: { columns: readonly ColumnMetadata[]; primaryKey: readonly string[] }): SqlType[] {
  return keyColumnsOf(table).map((c) => c.type);
}

export function tableDataPrefix(tableId: number): string {
  return `data/${tableId}/`;
}

/** Bytes of base data per bucket node before the optimizer splits it (`self-optimizing.target-size`, alias `write.target-file-size`). */
export function targetFileSize(table: TableMetadata): number {
  return optimizingSettings(table).targetSize;
}
