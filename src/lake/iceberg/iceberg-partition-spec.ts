import type { PartitionField, PartitionTransform } from '../partition/partition-transform.js';
import { transformResultType } from '../partition/partition-transform.js';
import type { SqlType } from '../../common/sql-type.js';
import { decodeStatValue } from '../stats/column-stats.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { IcebergColumn } from './iceberg-schema.js';
import { icebergTypeOf } from './iceberg-schema.js';

/** Iceberg's first partition field id (spec: partition field ids start at 1000). */
export const FIRST_PARTITION_FIELD_ID = 1000;

/** One field of the exported spec, with the Iceberg type of its values (the manifest's partition tuple). */
export interface IcebergPartitionField {
  readonly name: string;
  readonly transform: string;
  readonly sourceId: number;
  readonly fieldId: number;
  readonly resultType: string;
  /** The Floe type of the partition values (they are kept in the catalog in column-stats.ts's encoded form). */
  readonly resultSqlType: SqlType;
}

/** The spec Iceberg readers see; `fields` is empty for an unpartitioned table. */
export interface IcebergPartitionSpec {
  readonly specId: number;
  readonly fields: readonly IcebergPartitionField[];
  /** Why a partitioned Floe table is declared unpartitioned, when it is. */
  readonly unpartitionedBecause?: string;
}

/**
 * Floe's transforms are Iceberg's (partition-transform.ts follows the spec's definitions),
 * so each maps by name. The table is declared unpartitioned, whole, when a source column
 * has no Iceberg type, or a partition value's Iceberg type is one whose Avro form the
 * manifest writer does not write (decimal, uuid, time): a file's partition tuple must be
 * exact or absent. Declaring it unpartitioned is always correct, only less prunable.
 */
export function icebergPartitionSpec(table: TableMetadata, columns: readonly IcebergColumn[]): IcebergPartitionSpec {
  const fields: IcebergPartitionField[] = [];
  for (const [i, p] of table.partitionBy.entries()) {
    const source = columns.find((c) => c.column.name === p.sourceColumn);
    if (source === undefined) return unpartitioned(`partition source column "${p.sourceColumn}" has no Iceberg type`);
    const resultSqlType = transformResultType(p.transform, source.column.type);
    const resultType = icebergTypeOf(resultSqlType);
    if (resultType === undefined || !PARTITION_VALUE_TYPES.has(resultType)) {
      return unpartitioned(`partition field "${p.name}" has values of a type the manifest does not carry`);
    }
    fields.push({ name: p.name, transform: transformName(p.transform), sourceId: source.column.fieldId, fieldId: FIRST_PARTITION_FIELD_ID + i, resultType, resultSqlType });
  }
  return { specId: 0, fields };
}

function unpartitioned(reason: string): IcebergPartitionSpec {
  return { specId: 0, fields: [], unpartitionedBecause: reason };
}

/** Partition value types the manifest writer serializes (avro-schemas.ts, partitionAvroType). */
const PARTITION_VALUE_TYPES = new Set(['boolean', 'int', 'long', 'string', 'binary', 'date', 'timestamp', 'timestamptz']);

function transformName(t: PartitionTransform): string {
  switch (t.kind) {
    case 'identity': case 'year': case 'month': case 'day': case 'hour': return t.kind;
    case 'truncate': return `truncate[${t.width}]`;
    case 'bucket': return `bucket[${t.buckets}]`;
  }
}

/** Table metadata JSON's partition spec object. */
export function partitionSpecJson(spec: IcebergPartitionSpec): Record<string, unknown> {
  return {
    'spec-id': spec.specId,
    fields: spec.fields.map((f) => ({ name: f.name, transform: f.transform, 'source-id': f.sourceId, 'field-id': f.fieldId })),
  };
}

/** A file's partition tuple in the manifest's Avro form, keyed by partition field name. */
export function partitionTuple(spec: IcebergPartitionSpec, partitionBy: readonly PartitionField[], values: readonly unknown[]): Record<string, unknown> {
  const tuple: Record<string, unknown> = {};
  for (const f of spec.fields) {
    const v = values[partitionBy.findIndex((p) => p.name === f.name)];
    tuple[f.name] = v === null || v === undefined ? null : avroPartitionValue(f.resultType, decodeStatValue(f.resultSqlType, v));
  }
  return tuple;
}

function avroPartitionValue(type: string, v: unknown): unknown {
  switch (type) {
    case 'long': case 'timestamp': case 'timestamptz': return BigInt(v as bigint);
    case 'binary': return Buffer.from(v as Uint8Array);
    default: return v;
  }
}
