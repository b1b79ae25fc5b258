/**
 * Iceberg v2 table metadata (spec, "Table Metadata" and Appendix C), as this exporter writes
 * it. Each version is derived from the one before, so table-uuid, schemas, specs, the
 * sequence numbers and the logs carry forward.
 */
export interface IcebergSnapshotJson {
  readonly 'snapshot-id': number;
  readonly 'parent-snapshot-id'?: number;
  readonly 'sequence-number': number;
  readonly 'timestamp-ms': number;
  readonly 'manifest-list': string;
  readonly summary: Readonly<Record<string, string>>;
  readonly 'schema-id': number;
}

export interface IcebergTableMetadataJson {
  readonly 'format-version': 2;
  readonly 'table-uuid': string;
  readonly location: string;
  readonly 'last-sequence-number': number;
  readonly 'last-updated-ms': number;
  readonly 'last-column-id': number;
  readonly schemas: readonly Record<string, unknown>[];
  readonly 'current-schema-id': number;
  readonly 'partition-specs': readonly Record<string, unknown>[];
  readonly 'default-spec-id': number;
  readonly 'last-partition-id': number;
  readonly properties: Readonly<Record<string, string>>;
  readonly 'current-snapshot-id'?: number;
  readonly snapshots: readonly IcebergSnapshotJson[];
  readonly 'snapshot-log': readonly { readonly 'timestamp-ms': number; readonly 'snapshot-id': number }[];
  readonly 'metadata-log': readonly { readonly 'timestamp-ms': number; readonly 'metadata-file': string }[];
  readonly 'sort-orders': readonly Record<string, unknown>[];
  readonly 'default-sort-order-id': number;
  readonly refs: Readonly<Record<string, { readonly 'snapshot-id': number; readonly type: 'branch' | 'tag' }>>;
}

/** How many earlier metadata files a version lists (and the exporter keeps): Iceberg's `write.metadata.previous-versions-max`. */
export const PREVIOUS_VERSIONS_MAX = 10;

export interface NextMetadataInput {
  readonly previous: { readonly json: IcebergTableMetadataJson; readonly uri: string } | undefined;
  readonly tableUuid: string;
  readonly location: string;
  readonly schema: Record<string, unknown>;
  readonly schemaId: number;
  /** The largest field id the table has assigned, exported or not. */
  readonly maxFieldId: number;
  /** The current spec, its id from specIdFor. */
  readonly spec: Record<string, unknown> & { readonly 'spec-id': number; readonly fields: readonly { readonly 'field-id': number }[] };
  readonly properties: Readonly<Record<string, string>>;
  /** The snapshot to make current: new (its sequence number is last-sequence-number + 1) or one already listed. */
  readonly current: IcebergSnapshotJson;
  /** Snapshots whose data files still exist (their Floe snapshot is not expired); the rest are dropped. */
  readonly retained: (snapshotId: number) => boolean;
  readonly nowMs: number;
}

export function nextTableMetadata(input: NextMetadataInput): IcebergTableMetadataJson {
  const prev = input.previous?.json;
  const currentId = input.current['snapshot-id'];
  const snapshots = [...(prev?.snapshots ?? []).filter((s) => s['snapshot-id'] !== currentId && input.retained(s['snapshot-id'])), input.current]
    .sort((a, b) => a['sequence-number'] - b['sequence-number']);
  const schemas = [...(prev?.schemas ?? []).filter((s) => s['schema-id'] !== input.schemaId), input.schema]
    .sort((a, b) => (a['schema-id'] as number) - (b['schema-id'] as number));
  const specs = [...(prev?.['partition-specs'] ?? []).filter((s) => s['spec-id'] !== input.spec['spec-id']), input.spec]
    .sort((a, b) => (a['spec-id'] as number) - (b['spec-id'] as number));
  const lastPartitionId = Math.max(prev?.['last-partition-id'] ?? 999, ...input.spec.fields.map((f) => f['field-id']));
  const snapshotLog = [...(prev?.['snapshot-log'] ?? []), { 'timestamp-ms': input.nowMs, 'snapshot-id': currentId }]
    .filter((e) => snapshots.some((s) => s['snapshot-id'] === e['snapshot-id']));
  const metadataLog = input.previous === undefined ? [] : [...input.previous.json['metadata-log'],
    { 'timestamp-ms': input.previous.json['last-updated-ms'], 'metadata-file': input.previous.uri }].slice(-PREVIOUS_VERSIONS_MAX);
  return {
    'format-version': 2,
    'table-uuid': input.tableUuid,
    location: input.location,
    'last-sequence-number': Math.max(prev?.['last-sequence-number'] ?? 0, input.current['sequence-number']),
    // Never before a snapshot's own time, nor before the previous version's.
    'last-updated-ms': Math.max(input.nowMs, input.current['timestamp-ms'], prev?.['last-updated-ms'] ?? 0),
    'last-column-id': Math.max(prev?.['last-column-id'] ?? 0, input.maxFieldId),
    schemas,
    'current-schema-id': input.schemaId,
    'partition-specs': specs,
    'default-spec-id': input.spec['spec-id'],
    'last-partition-id': lastPartitionId,
    properties: input.properties,
    'current-snapshot-id': currentId,
    snapshots,
    'snapshot-log': snapshotLog,
    'metadata-log': metadataLog,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    'default-sort-order-id': 0,
    refs: { main: { 'snapshot-id': currentId, type: 'branch' } },
  };
}

/** The id of a spec with these fields: the one already listed, else the next unused id (a changed spec keeps old manifests readable). */
export function specIdFor(previous: IcebergTableMetadataJson | undefined, fields: readonly unknown[]): number {
  const specs = previous?.['partition-specs'] ?? [];
  const same = specs.find((s) => JSON.stringify(s['fields']) === JSON.stringify(fields));
  if (same !== undefined) return same['spec-id'] as number;
  return specs.reduce((m, s) => Math.max(m, (s['spec-id'] as number) + 1), 0);
}
