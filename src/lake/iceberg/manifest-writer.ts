import type { TableMetadata } from '../table/table-metadata.js';
import type { DataFileInfo } from '../warehouse/warehouse.js';
import { encodeAvroContainer } from './avro-container.js';
import { MANIFEST_FILE_SCHEMA, manifestEntrySchema } from './avro-schemas.js';
import type { IcebergPartitionSpec } from './iceberg-partition-spec.js';
import { partitionSpecJson, partitionTuple } from './iceberg-partition-spec.js';
import type { IcebergColumn } from './iceberg-schema.js';
import { singleValue } from './single-value.js';

/** A base file in a manifest: ADDED by this snapshot, or EXISTING with the numbers it was added with. */
export type ManifestFileEntry =
  | { readonly status: 'added'; readonly file: DataFileInfo; readonly uri: string }
  | { readonly status: 'existing'; readonly file: DataFileInfo; readonly uri: string; readonly snapshotId: bigint; readonly sequenceNumber: bigint; readonly fileSequenceNumber: bigint };

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

/** A manifest (Avro) of data files, with the key-value metadata the spec requires. */
export function encodeManifest(ctx: ManifestContext, entries: readonly ManifestFileEntry[]): Uint8Array {
  const records = entries.map((e) => ({
    status: e.status === 'added' ? STATUS_ADDED : STATUS_EXISTING,
    snapshot_id: e.status === 'added' ? ctx.snapshotId : e.snapshotId,
    // ADDED entries inherit both numbers from the manifest list (spec, "Sequence Number Inheritance").
    sequence_number: e.status === 'added' ? null : e.sequenceNumber,
    file_sequence_number: e.status === 'added' ? null : e.fileSequenceNumber,
    data_file: dataFileRecord(ctx, e.file, e.uri),
  }));
  return encodeAvroContainer(manifestEntrySchema(ctx.spec), records, {
    schema: JSON.stringify(ctx.schemaJson),
    'schema-id': String(ctx.table.schemaId),
    'partition-spec': JSON.stringify(partitionSpecJson(ctx.spec).fields),
    'partition-spec-id': String(ctx.spec.specId),
    'format-version': '2',
    content: 'data',
  });
}

function dataFileRecord(ctx: ManifestContext, file: DataFileInfo, uri: string): Record<string, unknown> {
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
    content: CONTENT_DATA,
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
    equality_ids: null,
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
  readonly entries: readonly ManifestFileEntry[];
}

/** A manifest list (Avro) naming a snapshot's manifests. */
export function encodeManifestList(snapshot: { id: bigint; parentId: bigint | undefined; sequenceNumber: bigint }, manifests: readonly ManifestListEntry[]): Uint8Array {
  const records = manifests.map((m) => {
    const added = m.entries.filter((e) => e.status === 'added');
    const existing = m.entries.filter((e) => e.status === 'existing');
    const rows = (es: readonly ManifestFileEntry[]) => es.reduce((n, e) => n + BigInt(e.file.rowCount), 0n);
    const minSeq = m.entries.reduce((min, e) => {
      const s = e.status === 'added' ? m.sequenceNumber : e.sequenceNumber;
      return s < min ? s : min;
    }, m.sequenceNumber);
    return {
      manifest_path: m.uri,
      manifest_length: BigInt(m.length),
      partition_spec_id: m.specId,
      content: CONTENT_DATA,
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
