/**
 * The Avro fields of Iceberg v2's manifest and manifest list, transcribed from the spec's
 * tables (format/spec.md: "Manifests" v2 manifest_entry and data_file, "Manifest Lists" v2
 * manifest_file), independently of src/lake/iceberg: [name, field id, required, Avro type].
 * Types: an Avro primitive, 'map<int,T>' (array of key/value records), 'list<T>', or 'struct'.
 */
export type SpecField = readonly [name: string, fieldId: number, required: boolean, type: string];

export const MANIFEST_ENTRY_V2: readonly SpecField[] = [
  ['status', 0, true, 'int'],
  ['snapshot_id', 1, false, 'long'],
  ['sequence_number', 3, false, 'long'],
  ['file_sequence_number', 4, false, 'long'],
  ['data_file', 2, true, 'struct'],
];

export const DATA_FILE_V2: readonly SpecField[] = [
  ['content', 134, true, 'int'],
  ['file_path', 100, true, 'string'],
  ['file_format', 101, true, 'string'],
  ['partition', 102, true, 'struct'],
  ['record_count', 103, true, 'long'],
  ['file_size_in_bytes', 104, true, 'long'],
  ['column_sizes', 108, false, 'map<117:int,118:long>'],
  ['value_counts', 109, false, 'map<119:int,120:long>'],
  ['null_value_counts', 110, false, 'map<121:int,122:long>'],
  ['nan_value_counts', 137, false, 'map<138:int,139:long>'],
  ['lower_bounds', 125, false, 'map<126:int,127:bytes>'],
  ['upper_bounds', 128, false, 'map<129:int,130:bytes>'],
  ['key_metadata', 131, false, 'bytes'],
  ['split_offsets', 132, false, 'list<133:long>'],
  ['equality_ids', 135, false, 'list<136:int>'],
  ['sort_order_id', 140, false, 'int'],
  ['referenced_data_file', 143, false, 'string'],
];

export const MANIFEST_FILE_V2: readonly SpecField[] = [
  ['manifest_path', 500, true, 'string'],
  ['manifest_length', 501, true, 'long'],
  ['partition_spec_id', 502, true, 'int'],
  ['content', 517, true, 'int'],
  ['sequence_number', 515, true, 'long'],
  ['min_sequence_number', 516, true, 'long'],
  ['added_snapshot_id', 503, true, 'long'],
  ['added_files_count', 504, true, 'int'],
  ['existing_files_count', 505, true, 'int'],
  ['deleted_files_count', 506, true, 'int'],
  ['added_rows_count', 512, true, 'long'],
  ['existing_rows_count', 513, true, 'long'],
  ['deleted_rows_count', 514, true, 'long'],
  ['partitions', 507, false, 'list<508:struct>'],
  ['key_metadata', 519, false, 'bytes'],
];

/** field_summary (508): contains_null required, the rest optional. */
export const FIELD_SUMMARY_V2: readonly SpecField[] = [
  ['contains_null', 509, true, 'boolean'],
  ['contains_nan', 518, false, 'boolean'],
  ['lower_bound', 510, false, 'bytes'],
  ['upper_bound', 511, false, 'bytes'],
];

/** Table metadata fields a v2 file must have (spec, "Table Metadata", v2 column "required"). */
export const TABLE_METADATA_V2_REQUIRED = [
  'format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms', 'last-column-id',
  'schemas', 'current-schema-id', 'partition-specs', 'default-spec-id', 'last-partition-id', 'sort-orders', 'default-sort-order-id',
] as const;

/** Snapshot fields required in v2. */
export const SNAPSHOT_V2_REQUIRED = ['snapshot-id', 'sequence-number', 'timestamp-ms', 'manifest-list', 'summary'] as const;

/** Keys a manifest's Avro metadata must carry in v2. */
export const MANIFEST_METADATA_V2 = ['schema', 'schema-id', 'partition-spec', 'partition-spec-id', 'format-version', 'content'] as const;
