import type { IcebergPartitionSpec } from './iceberg-partition-spec.js';

/**
 * The Avro schemas of Iceberg v2's manifest (manifest_entry, data_file) and manifest list
 * (manifest_file), with the field ids of the spec ("Manifests", "Manifest Lists") as `field-id`
 * attributes. Optional fields are unions with null, first, defaulting to null. Maps with
 * non-string keys are Avro arrays of key/value records marked `logicalType: map`, as the
 * spec's Avro mapping ("Avro" under "Appendix A") asks.
 */
type AvroSchema = Record<string, unknown> | string | unknown[];

function optional(name: string, fieldId: number, type: AvroSchema): Record<string, unknown> {
  return { name, type: ['null', type], default: null, 'field-id': fieldId };
}

function required(name: string, fieldId: number, type: AvroSchema): Record<string, unknown> {
  return { name, type, 'field-id': fieldId };
}

function intMap(keyId: number, valueId: number, valueType: string): AvroSchema {
  return {
    type: 'array',
    logicalType: 'map',
    items: {
      type: 'record',
      name: `k${keyId}_v${valueId}`,
      fields: [{ name: 'key', type: 'int', 'field-id': keyId }, { name: 'value', type: valueType, 'field-id': valueId }],
    },
  };
}

/** The Avro type of a partition value of an Iceberg type (partitionAvroType's domain is PARTITION_VALUE_TYPES). */
function partitionAvroType(icebergType: string): AvroSchema {
  switch (icebergType) {
    case 'boolean': return 'boolean';
    case 'int': return 'int';
    case 'long': return 'long';
    case 'string': return 'string';
    case 'binary': return 'bytes';
    case 'date': return { type: 'int', logicalType: 'date' };
    case 'timestamp': return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false };
    case 'timestamptz': return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true };
    default: throw new Error(`no Avro partition type for ${icebergType}`);
  }
}

export function partitionRecordSchema(spec: IcebergPartitionSpec): Record<string, unknown> {
  return {
    type: 'record',
    name: 'r102',
    fields: spec.fields.map((f) => optional(f.name, f.fieldId, partitionAvroType(f.resultType))),
  };
}

export function manifestEntrySchema(spec: IcebergPartitionSpec): Record<string, unknown> {
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      required('status', 0, 'int'),
      optional('snapshot_id', 1, 'long'),
      optional('sequence_number', 3, 'long'),
      optional('file_sequence_number', 4, 'long'),
      required('data_file', 2, {
        type: 'record',
        name: 'r2',
        fields: [
          required('content', 134, 'int'),
          required('file_path', 100, 'string'),
          required('file_format', 101, 'string'),
          required('partition', 102, partitionRecordSchema(spec)),
          required('record_count', 103, 'long'),
          required('file_size_in_bytes', 104, 'long'),
          optional('column_sizes', 108, intMap(117, 118, 'long')),
          optional('value_counts', 109, intMap(119, 120, 'long')),
          optional('null_value_counts', 110, intMap(121, 122, 'long')),
          optional('nan_value_counts', 137, intMap(138, 139, 'long')),
          optional('lower_bounds', 125, intMap(126, 127, 'bytes')),
          optional('upper_bounds', 128, intMap(129, 130, 'bytes')),
          optional('key_metadata', 131, 'bytes'),
          optional('split_offsets', 132, { type: 'array', items: 'long', 'element-id': 133 }),
          optional('equality_ids', 135, { type: 'array', items: 'int', 'element-id': 136 }),
          optional('sort_order_id', 140, 'int'),
          optional('referenced_data_file', 143, 'string'),
        ],
      }),
    ],
  };
}

export const MANIFEST_FILE_SCHEMA: Record<string, unknown> = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    required('manifest_path', 500, 'string'),
    required('manifest_length', 501, 'long'),
    required('partition_spec_id', 502, 'int'),
    required('content', 517, 'int'),
    required('sequence_number', 515, 'long'),
    required('min_sequence_number', 516, 'long'),
    required('added_snapshot_id', 503, 'long'),
    required('added_files_count', 504, 'int'),
    required('existing_files_count', 505, 'int'),
    required('deleted_files_count', 506, 'int'),
    required('added_rows_count', 512, 'long'),
    required('existing_rows_count', 513, 'long'),
    required('deleted_rows_count', 514, 'long'),
    optional('partitions', 507, {
      type: 'array',
      'element-id': 508,
      items: {
        type: 'record',
        name: 'r508',
        fields: [
          required('contains_null', 509, 'boolean'),
          optional('contains_nan', 518, 'boolean'),
          optional('lower_bound', 510, 'bytes'),
          optional('upper_bound', 511, 'bytes'),
        ],
      },
    }),
    optional('key_metadata', 519, 'bytes'),
  ],
};
