import { createHash, randomUUID } from 'node:crypto';
import { isLogPath } from '../log/log-locator.js';
import type { Snapshot } from '../refs/snapshot.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { DataFileInfo } from '../warehouse/warehouse.js';
import { icebergPartitionSpec, partitionSpecJson } from './iceberg-partition-spec.js';
import { icebergColumnsOf, icebergSchemaJson, nameMappingJson } from './iceberg-schema.js';
import {
  VERSION_HINT_FILE, icebergMetadataPrefix, icebergTableKey, metadataFileName, storageUri, versionOfMetadataFile,
} from './iceberg-locations.js';
import { readLiveFiles } from './manifest-reader.js';
import { readNewestMetadataVersion } from './newest-metadata-version.js';
import type { ManifestFileEntry } from './manifest-writer.js';
import { encodeManifest, encodeManifestList } from './manifest-writer.js';
import type { IcebergSnapshotJson, IcebergTableMetadataJson } from './table-metadata-json.js';
import { PREVIOUS_VERSIONS_MAX, nextTableMetadata, specIdFor } from './table-metadata-json.js';

/** What the exporter reads of the lake: the head of main, the files at a snapshot, the snapshots not expired. */
export interface IcebergExportSource {
  readonly storage: Storage;
  readonly storageConfig: StorageConfig;
  head(table: TableMetadata): Snapshot | undefined;
  filesAt(table: TableMetadata, snapshotId: bigint): DataFileInfo[];
  liveSnapshotIds(table: TableMetadata): ReadonlySet<bigint>;
}

export type IcebergExportResult =
  /** A new vN.metadata.json is the newest version. */
  | { readonly kind: 'written'; readonly version: number; readonly snapshotId: bigint }
  /** The newest version already describes the base store and schema at the head. */
  | { readonly kind: 'unchanged'; readonly version: number }
  /** Nothing written: the base store cannot be shown to Iceberg v2 readers exactly (see reason). */
  | { readonly kind: 'skipped'; readonly reason: string };

/** An Avro file no version names is deleted only past this age: another exporter may be about to name it. */
const UNNAMED_AVRO_GRACE_MICROS = 10n * 60n * 1_000_000n;

/** Summary key holding a digest of the base files (ids and deleted rows) a snapshot lists. */
const BASE_DIGEST_KEY = 'floe.base-files-digest';

/**
 * Writes Iceberg v2 metadata for the base store at the head of `main` when it differs from what
 * the newest metadata version describes (docs/design-notes.md, "Iceberg metadata"). Files go
 * in the order manifest → manifest list → vN.metadata.json → version-hint.text, each one
 * complete when written (Storage.put), and none ever rewritten but the hint; a crash at any
 * point leaves the newest vN intact and at worst unreferenced files, which the next export's
 * cleanup removes once they are older than a grace period. Two exporters (two gateways on
 * one warehouse) may race: both write a complete vN+1 naming their own manifests, the last
 * written stands, and the grace period keeps one exporter's cleanup from deleting the
 * manifests the other is about to name.
 */
export async function exportIcebergMetadata(source: IcebergExportSource, table: TableMetadata, nowMs: number): Promise<IcebergExportResult> {
  const head = source.head(table);
  if (head === undefined) return { kind: 'skipped', reason: 'the table has no snapshot' };
  const files = source.filesAt(table, head.id).filter((f) => f.store === 'base');
  const columns = icebergColumnsOf(table);
  const problem = inexpressible(table, files, columns.map((c) => c.column.name));
  if (problem !== undefined) return { kind: 'skipped', reason: problem };

  const prefix = icebergMetadataPrefix(table.id);
  const previous = await readNewestMetadataVersion(source.storage, prefix);
  const digest = baseDigest(files);
  const prevJson = previous?.json;
  const prevCurrent = prevJson?.snapshots.find((s) => s['snapshot-id'] === prevJson['current-snapshot-id']);
  if (previous !== undefined && prevCurrent?.summary[BASE_DIGEST_KEY] === digest && prevJson!['current-schema-id'] === table.schemaId) {
    return { kind: 'unchanged', version: previous.version };
  }

  const uri = (key: string) => storageUri(source.storageConfig, key);
  const schemaJson = icebergSchemaJson(table.schemaId, columns);
  const baseSpec = icebergPartitionSpec(table, columns);
  const spec = { ...baseSpec, specId: specIdFor(prevJson, partitionSpecJson(baseSpec).fields as unknown[]) };
  const live = source.liveSnapshotIds(table);
  const snapshotId = safeNumber(head.id);
  // A head already exported (a rollback to it): make that snapshot current again, nothing else to write.
  let current = prevJson?.snapshots.find((s) => s['snapshot-id'] === snapshotId);
  if (current === undefined || current.summary[BASE_DIGEST_KEY] !== digest) {
    const sequenceNumber = BigInt((prevJson?.['last-sequence-number'] ?? 0) + 1);
    const parentId = prevCurrent !== undefined && live.has(BigInt(prevCurrent['snapshot-id'])) ? BigInt(prevCurrent['snapshot-id']) : undefined;
    const before = prevCurrent === undefined ? new Map() : await readLiveFiles(source.storage, keyOfUri(prefix, prevCurrent['manifest-list']), (u) => keyOfUri(prefix, u));
    const entries: ManifestFileEntry[] = files.map((file) => {
      const fileUri = uri(file.path);
      const was = before.get(fileUri);
      return was === undefined ? { status: 'added', file, uri: fileUri } : { status: 'existing', file, uri: fileUri, ...was };
    });
    const listName = `snap-${head.id}-${randomUUID()}`;
    const manifests = [];
    if (entries.length > 0) {
      const manifestKey = `${prefix}${listName}-m0.avro`;
      const manifest = encodeManifest({ table, columns, spec, schemaJson, snapshotId: head.id }, entries);
      await source.storage.put(manifestKey, manifest);
      manifests.push({ uri: uri(manifestKey), length: manifest.length, specId: spec.specId, sequenceNumber, snapshotId: head.id, entries });
    }
    const listKey = `${prefix}${listName}.avro`;
    await source.storage.put(listKey, encodeManifestList({ id: head.id, parentId, sequenceNumber }, manifests));
    current = snapshotJson(head, parentId, sequenceNumber, uri(listKey), entries, before.size, digest, files, table.schemaId);
  }

  const version = (previous?.version ?? 0) + 1;
  const json = nextTableMetadata({
    previous: previous === undefined ? undefined : { json: previous.json, uri: uri(`${prefix}${metadataFileName(previous.version)}`) },
    tableUuid: prevJson?.['table-uuid'] ?? randomUUID(),
    location: uri(icebergTableKey(table.id)),
    schema: schemaJson,
    schemaId: table.schemaId,
    maxFieldId: table.columns.reduce((m, c) => Math.max(m, c.fieldId), 0),
    spec: { ...partitionSpecJson(spec), 'spec-id': spec.specId } as Parameters<typeof nextTableMetadata>[0]['spec'],
    properties: {
      'schema.name-mapping.default': nameMappingJson(columns),
      'write.metadata.previous-versions-max': String(PREVIOUS_VERSIONS_MAX),
      'floe.table-id': String(table.id),
      ...(spec.unpartitionedBecause === undefined ? {} : { 'floe.unpartitioned-because': spec.unpartitionedBecause }),
    },
    current,
    retained: (id) => live.has(BigInt(id)),
    nowMs,
  });
  await source.storage.put(`${prefix}${metadataFileName(version)}`, new TextEncoder().encode(JSON.stringify(json, null, 1)));
  // Written last: a reader that trusts the hint finds a complete version.
  await source.storage.put(`${prefix}${VERSION_HINT_FILE}`, new TextEncoder().encode(String(version)));
  await removeUnreferenced(source.storage, prefix, version, json, prevJson, BigInt(nowMs) * 1000n);
  return { kind: 'written', version, snapshotId: head.id };
}

/**
 * Why the base store cannot be shown to Iceberg v2 readers as plain Parquet data files, if it
 * cannot: an append table's rows committed through the log store are not in Parquet yet;
 * rows hidden by deletion vectors (an append table's DELETE/UPDATE, a keyed node's delta fold)
 * would need position delete files, and a column added with a DEFAULT reads as that default in
 * Floe but as NULL in files written before it (v3's initial-default). The newest version
 * written before stays as it is.
 */
function inexpressible(table: TableMetadata, files: readonly DataFileInfo[], exported: readonly string[]): string | undefined {
  // An append table's small commits sit in the log store until the append optimizer's minor moves them into Parquet.
  if (files.some((f) => isLogPath(f.path))) return 'base rows are still in the log store (not Parquet yet)';
  if (files.some((f) => f.deletedRows > 0)) return 'base files have deletion vectors (position deletes are not written yet)';
  for (const c of table.columns) {
    if (c.initialDefault === undefined || !exported.includes(c.name)) continue;
    if (files.some((f) => f.columnStats[c.name] === undefined)) return `column "${c.name}" has an initial default that files written before it do not hold`;
  }
  return undefined;
}

function baseDigest(files: readonly DataFileInfo[]): string {
  const ids = files.map((f) => `${f.fileId}`).sort();
  return createHash('sha256').update(ids.join(',')).digest('hex');
}

function snapshotJson(
  head: Snapshot, parentId: bigint | undefined, sequenceNumber: bigint, manifestList: string,
  entries: readonly ManifestFileEntry[], filesBefore: number, digest: string, files: readonly DataFileInfo[], schemaId: number,
): IcebergSnapshotJson {
  const added = entries.filter((e) => e.status === 'added');
  const removed = filesBefore - (entries.length - added.length);
  return {
    'snapshot-id': safeNumber(head.id),
    ...(parentId === undefined ? {} : { 'parent-snapshot-id': safeNumber(parentId) }),
    'sequence-number': Number(sequenceNumber),
    'timestamp-ms': Number(head.committedAtMicros / 1000n),
    'manifest-list': manifestList,
    summary: {
      operation: removed === 0 ? 'append' : added.length === 0 ? 'delete' : 'overwrite',
      'added-data-files': String(added.length),
      'deleted-data-files': String(removed),
      'added-records': String(added.reduce((n, e) => n + e.file.rowCount, 0)),
      'total-data-files': String(files.length),
      'total-records': String(files.reduce((n, f) => n + f.rowCount, 0)),
      'total-files-size': String(files.reduce((n, f) => n + f.sizeBytes, 0)),
      'total-delete-files': '0',
      'floe.snapshot-id': String(head.id),
      [BASE_DIGEST_KEY]: digest,
    },
    // The schema the files are shown with (the head's own may predate every schema this export lists).
    'schema-id': schemaId,
  };
}

/**
 * Deletes what the new version no longer needs: metadata files older than the ones its
 * metadata-log keeps; manifest lists and manifests of snapshots the previous version listed
 * and this one does not (expired in Floe, whose data files expiry may delete); and, once
 * past a grace period, those no version named (an export that crashed before its vN, or
 * that lost a race with another exporter, which may still be about to name its files).
 */
async function removeUnreferenced(
  storage: Storage, prefix: string, version: number, json: IcebergTableMetadataJson, previous: IcebergTableMetadataJson | undefined, nowMicros: bigint,
): Promise<void> {
  const listNames = (j: IcebergTableMetadataJson) => j.snapshots.map((s) => s['manifest-list'].slice(s['manifest-list'].lastIndexOf('/') + 1).replace(/\.avro$/, ''));
  const ofList = (lists: readonly string[], name: string) => lists.some((l) => name === `${l}.avro` || name.startsWith(`${l}-m`));
  const keep = listNames(json);
  const namedBefore = previous === undefined ? [] : listNames(previous);
  for (const o of await storage.list(prefix)) {
    const name = o.key.slice(prefix.length);
    const v = versionOfMetadataFile(name);
    const stale = v !== undefined ? v < version - PREVIOUS_VERSIONS_MAX
      : name.endsWith('.avro') && !ofList(keep, name) && (ofList(namedBefore, name) || nowMicros - o.modifiedMicros > UNNAMED_AVRO_GRACE_MICROS);
    if (stale) await storage.delete(o.key);
  }
}

/** The storage key of a manifest or list this exporter wrote: its name under the metadata prefix. */
function keyOfUri(prefix: string, uri: string): string {
  return `${prefix}${uri.slice(uri.lastIndexOf('/') + 1)}`;
}

function safeNumber(id: bigint): number {
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`snapshot id ${id} does not fit a JSON number`);
  return Number(id);
}
