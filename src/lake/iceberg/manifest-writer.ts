import type { TableMetadata } from '../table/table-metadata.js';
import type { DataFileInfo } from '../warehouse/warehouse.js';
import { encodeAvroContainer } from './avro-container.js';
import { MANIFEST_FILE_SCHEMA, manifestEntrySchema } from './avro-schemas.js';
import type { IcebergPartitionSpec } from './iceberg-partition-spec.js';
import { partitionSpecJson, partitionTuple } from './iceberg-partition-spec.js';
import type { IcebergColumn } from './iceberg-schema.js';
import { singleValue } from './single-value.js';

/** What a manifest says of a file: a base file (a DataFileInfo), or a file the export wrote for the change store. */
export interface ManifestFile {
  readonly rowCount: number;
  readonly sizeBytes: number;
  readonly partitionValues: readonly unknown[];
  /** Per column name, canonical min/max and null count; a column left out has no bounds. */
  readonly columnStats: DataFileInfo['columnStats'];
  /** An equality delete file: the field ids of the columns it matches rows on (the primary key). */
  readonly equalityIds?: readonly number[];
}

/**
 * A file in a manifest: ADDED by this snapshot (with an explicit data sequence number when
 * it must sort below files added beside it, else inherited), or EXISTING with the numbers
 * it was added with.
 */
export type ManifestFileEntry =
  | { readonly status: 'added'; readonly file: ManifestFile; readonly uri: string; readonly sequenceNumber?: bigint }
  | { readonly status: 'existing'; readonly file: ManifestFile; readonly uri: string; readonly snapshotId: bigint; readonly sequenceNumber: bigint; readonly fileSequenceNumber: bigint };

/** A data manifest lists data files; a delete manifest, delete files (here equality deletes only). */
export type ManifestContent = 'data' | 'deletes';

export interface ManifestContext {
  readonly table: TableMetadata;
  readonly columns: readonly IcebergColumn[];
  readonly spec: IcebergPartitionSpec;
  readonly schemaJson: Record<string, unknown>;
  readonly snapshotId: bigint;
}

const STATUS_EXISTING = 0;
const STATUS_ADDED = 1;
const CONTENT_DATA = 0;
const CONTENT_EQUALITY_DELETES = 2;
const MANIFEST_CONTENT_DELETES = 1;

/** A manifest (Avro) of data or delete files, with the key-value metadata the spec requires. */
export function encodeManifest(ctx: ManifestContext, entries: readonly ManifestFileEntry[], content: ManifestContent = 'data'): Uint8Array {
  const records = entries.map((e) => ({
    status: e.status === 'added' ? STATUS_ADDED : STATUS_EXISTING,
    snapshot_id: e.status === 'added' ? ctx.snapshotId : e.snapshotId,
    // ADDED entries without explicit numbers inherit both from the manifest list (spec, "Sequence Number Inheritance").
    sequence_number: e.sequenceNumber ?? null,
    file_sequence_number: e.status === 'added' ? e.sequenceNumber ?? null : e.fileSequenceNumber,
    data_file: dataFileRecord(ctx, e.file, e.uri),
  }));
  return encodeAvroContainer(manifestEntrySchema(ctx.spec), records, {
    schema: JSON.stringify(ctx.schemaJson),
    'schema-id': String(ctx.table.schemaId),
    'partition-spec': JSON.stringify(partitionSpecJson(ctx.spec).fields),
    'partition-spec-id': String(ctx.spec.specId),
    'format-version': '2',
    content,
  });
}

function dataFileRecord(ctx: ManifestContext, file: ManifestFile, uri: string): Record<string, unknown> {
  const valueCounts: { key: number; value: bigint }[] = [];
  const nullCounts: { key: number; value: bigint }[] = [];
  const lower: { key: number; value: Buffer }[] = [];
  const upper: { key: number; value: Buffer }[] = [];
  for (const { column } of ctx.columns) {
    const stats = file.columnStats[column.name];
    // No statistics: the column was added after the file was written.
    if (stats === undefined) continue;
    const id = column.fieldId;
    valueCounts.push({ key: id, value: BigInt(file.rowCount) });
    nullCounts.push({ key: id, value: BigInt(stats.nullCount) });
    const lo = singleValue(column.type, stats.min);
    const hi = singleValue(column.type, stats.max);
    if (lo !== undefined) lower.push({ key: id, value: Buffer.from(lo) });
    if (hi !== undefined) upper.push({ key: id, value: Buffer.from(hi) });
  }
  return {
    content: file.equalityIds === undefined ? CONTENT_DATA : CONTENT_EQUALITY_DELETES,
    file_path: uri,
    file_format: 'PARQUET',
    partition: partitionTuple(ctx.spec, ctx.table.partitionBy, file.partitionValues),
    record_count: BigInt(file.rowCount),
    file_size_in_bytes: BigInt(file.sizeBytes),
    // Floe's catalog keeps no per-column sizes.
    column_sizes: null,
    value_counts: valueCounts,
    null_value_counts: nullCounts,
    nan_value_counts: null,
    lower_bounds: lower,
    upper_bounds: upper,
    key_metadata: null,
    split_offsets: null,
    equality_ids: file.equalityIds === undefined ? null : [...file.equalityIds],
    sort_order_id: null,
    referenced_data_file: null,
  };
}

/** One manifest's line in a manifest list. */
export interface ManifestListEntry {
  readonly uri: string;
  readonly length: number;
  readonly specId: number;
  readonly sequenceNumber: bigint;
  readonly snapshotId: bigint;
  readonly content: ManifestContent;
  readonly entries: readonly ManifestFileEntry[];
}

/** A manifest list (Avro) naming a snapshot's manifests. */
export function encodeManifestList(snapshot: { id: bigint; parentId: bigint | undefined; sequenceNumber: bigint }, manifests: readonly ManifestListEntry[]): Uint8Array {
  const records = manifests.map((m) => {
    const added = m.entries.filter((e) => e.status === 'added');
    const existing = m.entries.filter((e) => e.status === 'existing');
    const rows = (es: readonly ManifestFileEntry[]) => es.reduce((n, e) => n + BigInt(e.file.rowCount), 0n);
    const minSeq = m.entries.reduce((min, e) => {
      const s = e.sequenceNumber ?? m.sequenceNumber;
      return s < min ? s : min;
    }, m.sequenceNumber);
    return {
      manifest_path: m.uri,
      manifest_length: BigInt(m.length),
      partition_spec_id: m.specId,
      content: m.content === 'data' ? CONTENT_DATA : MANIFEST_CONTENT_DELETES,
      sequence_number: m.sequenceNumber,
      min_sequence_number: minSeq,
      added_snapshot_id: m.snapshotId,
      added_files_count: added.length,
      existing_files_count: existing.length,
      deleted_files_count: 0,
      added_rows_count: rows(added),
      existing_rows_count: rows(existing),
      deleted_rows_count: 0n,
      // Partition summaries are optional; readers then prune by each file's tuple.
      partitions: null,
      key_metadata: null,
    };
  });
  return encodeAvroContainer(MANIFEST_FILE_SCHEMA, records, {
    'snapshot-id': String(snapshot.id),
    'parent-snapshot-id': snapshot.parentId === undefined ? 'null' : String(snapshot.parentId),
    'sequence-number': String(snapshot.sequenceNumber),
    'format-version': '2',
  });
}
