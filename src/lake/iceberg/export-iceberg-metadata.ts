import { createHash, randomUUID } from 'node:crypto';
import { isLogPath } from '../log/log-locator.js';
import { mergeEngineOf } from '../merge/merge-engine.js';
import type { Snapshot } from '../refs/snapshot.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import { icebergChangeIntervalMs } from '../table/iceberg-properties.js';
import { isKeyed, keyColumnsOf } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { DataFileInfo } from '../warehouse/warehouse.js';
import { writeChangeStoreFiles } from './change-store-files.js';
import type { ChangeStoreFile, ChangeStoreJob, ChangeStoreWriter } from './change-store-files.js';
import type { ScanTask } from '../scan/scan-types.js';
import { icebergPartitionSpec, partitionSpecJson } from './iceberg-partition-spec.js';
import { icebergColumnsOf, icebergSchemaJson, nameMappingJson } from './iceberg-schema.js';
import {
  VERSION_HINT_FILE, icebergDataPrefix, icebergMetadataPrefix, icebergTableKey, metadataFileName, storageUri, versionOfMetadataFile,
} from './iceberg-locations.js';
import { readLiveFiles } from './manifest-reader.js';
import { readNewestMetadataVersion } from './newest-metadata-version.js';
import type { ManifestFile, ManifestFileEntry } from './manifest-writer.js';
import { encodeManifest, encodeManifestList } from './manifest-writer.js';
import type { IcebergSnapshotJson, IcebergTableMetadataJson } from './table-metadata-json.js';
import { PREVIOUS_VERSIONS_MAX, nextTableMetadata, specIdFor } from './table-metadata-json.js';

/**
 * What the exporter reads of the lake: the head of main, the files at a snapshot, the
 * snapshots not expired, and the scan of a keyed table's change store at a snapshot
 * (change-store-files.ts folds and writes it).
 */
export interface IcebergExportSource {
  readonly storage: Storage;
  readonly storageConfig: StorageConfig;
  head(table: TableMetadata): Snapshot | undefined;
  filesAt(table: TableMetadata, snapshotId: bigint): DataFileInfo[];
  /** Of `among` (the snapshots the newest export names), those not expired. */
  liveSnapshotIds(table: TableMetadata, among: readonly bigint[]): ReadonlySet<bigint>;
  /** The table's scan at the snapshot: full projection, no filters. */
  changeStoreTasks(table: TableMetadata, snapshotId: bigint): Promise<readonly ScanTask[]>;
}

export type IcebergExportResult =
  /** A new vN.metadata.json is the newest version. */
  | { readonly kind: 'written'; readonly version: number; readonly snapshotId: bigint }
  /** The newest version already describes the base store, change store and schema at the head. */
  | { readonly kind: 'unchanged'; readonly version: number }
  /**
   * Only the change store moved, and the newest version is younger than the table's
   * `metadata.iceberg.change-interval`: nothing written; look again at `untilMs`.
   */
  | { readonly kind: 'deferred'; readonly version: number; readonly untilMs: number }
  /** Nothing written: the base store cannot be shown to Iceberg v2 readers exactly (see reason). */
  | { readonly kind: 'skipped'; readonly reason: string };

export interface IcebergExportOptions {
  /**
   * Honour the table's `metadata.iceberg.change-interval` (the background service does): a
   * head whose base store and schema are as exported, and whose changes only moved, waits.
   * Without it the export is written now.
   */
  readonly deferChanges?: boolean;
  /**
   * Where the change store is read and written as files, the export's heaviest part (a
   * decode and merge of every pending row, and two Parquet encodes): the metadata service
   * gives it a background thread. Without it, in the caller's thread.
   */
  readonly writeChangeStore?: ChangeStoreWriter;
}

/** A file no version names is deleted only past this age: another exporter may be about to name it. */
const UNNAMED_FILE_GRACE_MICROS = 10n * 60n * 1_000_000n;

/** Summary key holding a digest of the base files (ids and deleted rows) a snapshot lists. */
const BASE_DIGEST_KEY = 'floe.base-files-digest';
/** Summary key holding a digest of the change files a snapshot shows as equality deletes and data; absent when none. */
const CHANGE_DIGEST_KEY = 'floe.change-files-digest';

/**
 * Writes Iceberg v2 metadata for the head of `main` when its base store, change store or
 * schema differ from what the newest metadata version describes (docs/design-notes.md,
 * "Iceberg metadata"). A keyed table's pending changes are shown as v2 readers merge them:
 * an equality delete file of every key they touch and a data file of the rows they leave,
 * both at a data sequence number above every base file's. Files go in the order data files
 * → manifests → manifest list → vN.metadata.json → version-hint.text, each one complete when
 * written (Storage.put), and none ever rewritten but the hint; a crash at any point leaves
 * the newest vN intact and at worst unreferenced files, which the next export's cleanup
 * removes once they are older than a grace period. Two exporters (two gateways on one
 * warehouse) may race: both write a complete vN+1 naming their own files, the last written
 * stands, and the grace period keeps one exporter's cleanup from deleting the files the
 * other is about to name.
 */
export async function exportIcebergMetadata(
  source: IcebergExportSource, table: TableMetadata, nowMs: number, opts: IcebergExportOptions = {},
): Promise<IcebergExportResult> {
  const head = source.head(table);
  if (head === undefined) return { kind: 'skipped', reason: 'the table has no snapshot' };
  const allFiles = source.filesAt(table, head.id);
  const files = allFiles.filter((f) => f.store === 'base');
  const changeFiles = exportsChangeStore(table) ? allFiles.filter((f) => f.store === 'change') : [];
  const columns = icebergColumnsOf(table);
  const problem = inexpressible(table, files, columns.map((c) => c.column.name));
  if (problem !== undefined) return { kind: 'skipped', reason: problem };

  const prefix = icebergMetadataPrefix(table.id);
  const previous = await readNewestMetadataVersion(source.storage, prefix);
  const digest = baseDigest(files);
  const changeDigest = changeFiles.length === 0 ? undefined : baseDigest(changeFiles);
  const shows = (s: IcebergSnapshotJson | undefined): s is IcebergSnapshotJson => s !== undefined && s.summary[BASE_DIGEST_KEY] === digest && s.summary[CHANGE_DIGEST_KEY] === changeDigest;
  const prevJson = previous?.json;
  const prevCurrent = prevJson?.snapshots.find((s) => s['snapshot-id'] === prevJson['current-snapshot-id']);
  if (previous !== undefined && shows(prevCurrent) && prevJson!['current-schema-id'] === table.schemaId) {
    return { kind: 'unchanged', version: previous.version };
  }
  if (opts.deferChanges === true && previous !== undefined && prevCurrent?.summary[BASE_DIGEST_KEY] === digest && prevJson!['current-schema-id'] === table.schemaId) {
    const untilMs = prevJson!['last-updated-ms'] + icebergChangeIntervalMs(table);
    if (nowMs < untilMs) return { kind: 'deferred', version: previous.version, untilMs };
  }

  const uri = (key: string) => storageUri(source.storageConfig, key);
  const schemaJson = icebergSchemaJson(table.schemaId, columns);
  const baseSpec = icebergPartitionSpec(table, columns);
  const spec = { ...baseSpec, specId: specIdFor(prevJson, partitionSpecJson(baseSpec).fields as unknown[]) };
  // Only the exported snapshots are asked about: the table's own history is far longer under a stream.
  const live = source.liveSnapshotIds(table, (prevJson?.snapshots ?? []).map((s) => BigInt(s['snapshot-id'])));
  const snapshotId = safeNumber(head.id);
  // A head already exported (a rollback to it): make that snapshot current again, nothing else to write.
  let current = prevJson?.snapshots.find((s) => s['snapshot-id'] === snapshotId);
  if (!shows(current)) {
    const lastSequenceNumber = BigInt(prevJson?.['last-sequence-number'] ?? 0);
    const parentId = prevCurrent !== undefined && live.has(BigInt(prevCurrent['snapshot-id'])) ? BigInt(prevCurrent['snapshot-id']) : undefined;
    const before = prevCurrent === undefined ? new Map() : await readLiveFiles(source.storage, keyOfUri(prefix, prevCurrent['manifest-list']), (u) => keyOfUri(prefix, u));
    const listName = `snap-${head.id}-${randomUUID()}`;
    const changes = changeDigest === undefined ? [] : await writeChangeStore(source, table, head.id, changeFiles, `${icebergDataPrefix(table.id)}${listName}`, opts);
    // Base files this snapshot adds sort below its change-store files, so the equality deletes apply to them.
    const baseAddedSeq = changes.length > 0 ? lastSequenceNumber + 1n : undefined;
    const sequenceNumber = lastSequenceNumber + (changes.length > 0 ? 2n : 1n);
    const entries: ManifestFileEntry[] = files.map((file) => {
      const fileUri = uri(file.path);
      const was = before.get(fileUri);
      if (was !== undefined) return { status: 'existing', file, uri: fileUri, ...was };
      return { status: 'added', file, uri: fileUri, ...(baseAddedSeq === undefined ? {} : { sequenceNumber: baseAddedSeq }) };
    });
    const dataEntries: ManifestFileEntry[] = [...entries, ...changes.filter((c) => c.equalityIds === undefined).map((c) => ({ status: 'added' as const, file: c, uri: uri(c.key) }))];
    const deleteEntries: ManifestFileEntry[] = changes.filter((c) => c.equalityIds !== undefined).map((c) => ({ status: 'added' as const, file: c, uri: uri(c.key) }));
    const manifests = [];
    for (const [i, content, list] of [[0, 'data', dataEntries], [1, 'deletes', deleteEntries]] as const) {
      if (list.length === 0) continue;
      const manifestKey = `${prefix}${listName}-m${i}.avro`;
      const manifest = encodeManifest({ table, columns, spec, schemaJson, snapshotId: head.id }, list, content);
      await source.storage.put(manifestKey, manifest);
      manifests.push({ uri: uri(manifestKey), length: manifest.length, specId: spec.specId, sequenceNumber, snapshotId: head.id, content, entries: list });
    }
    const listKey = `${prefix}${listName}.avro`;
    await source.storage.put(listKey, encodeManifestList({ id: head.id, parentId, sequenceNumber }, manifests));
    current = snapshotJson({
      head, parentId, sequenceNumber, manifestList: uri(listKey), entries, filesBefore: before.size, digest, changeDigest, files, changes, schemaId: table.schemaId,
    });
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
    // A snapshot whose base store the new one shows as well, and which differs from it only by
    // the change store it showed, is superseded: a stream would otherwise keep a copy of its
    // change store per export for as long as Floe keeps the snapshot.
    retained: (id) => live.has(BigInt(id)) && !supersededByChanges(prevJson?.snapshots.find((s) => s['snapshot-id'] === id), digest),
    nowMs,
  });
  await source.storage.put(`${prefix}${metadataFileName(version)}`, new TextEncoder().encode(JSON.stringify(json, null, 1)));
  // Written last: a reader that trusts the hint finds a complete version.
  await source.storage.put(`${prefix}${VERSION_HINT_FILE}`, new TextEncoder().encode(String(version)));
  await removeUnreferenced(source.storage, table.id, version, json, prevJson, BigInt(nowMs) * 1000n);
  return { kind: 'written', version, snapshotId: head.id };
}

/** Only the deduplicate merge engine's change store is a set of replaced rows; an aggregating one combines a key's rows with its base row. */
function exportsChangeStore(table: TableMetadata): boolean {
  return isKeyed(table) && mergeEngineOf(table).kind === 'deduplicate';
}

function supersededByChanges(s: IcebergSnapshotJson | undefined, baseDigest: string): boolean {
  return s !== undefined && s.summary[CHANGE_DIGEST_KEY] !== undefined && s.summary[BASE_DIGEST_KEY] === baseDigest;
}

/** The change-store files of the head's snapshot, written where `opts.writeChangeStore` runs them (here by default). */
async function writeChangeStore(
  source: IcebergExportSource, table: TableMetadata, snapshotId: bigint, changeFiles: readonly DataFileInfo[], namePrefix: string,
  opts: IcebergExportOptions,
): Promise<ChangeStoreFile[]> {
  const job: ChangeStoreJob = {
    storage: source.storageConfig,
    tasks: await source.changeStoreTasks(table, snapshotId),
    equalityIds: keyColumnsOf(table).map((c) => c.fieldId),
    namePrefix,
    partitionValues: [...new Map(changeFiles.map((f) => [f.partitionKey, f.partitionValues]))],
  };
  return opts.writeChangeStore === undefined ? writeChangeStoreFiles(job, source.storage) : opts.writeChangeStore(job);
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

interface SnapshotParts {
  readonly head: Snapshot;
  readonly parentId: bigint | undefined;
  readonly sequenceNumber: bigint;
  readonly manifestList: string;
  /** The base files' entries. */
  readonly entries: readonly ManifestFileEntry[];
  readonly filesBefore: number;
  readonly digest: string;
  readonly changeDigest: string | undefined;
  readonly files: readonly DataFileInfo[];
  readonly changes: readonly ChangeStoreFile[];
  readonly schemaId: number;
}

function snapshotJson(p: SnapshotParts): IcebergSnapshotJson {
  const added = p.entries.filter((e) => e.status === 'added');
  const removed = p.filesBefore - (p.entries.length - added.length);
  const changeRows = p.changes.filter((c) => c.equalityIds === undefined);
  const deletes = p.changes.filter((c) => c.equalityIds !== undefined);
  const sum = (fs: readonly ManifestFile[], f: (x: ManifestFile) => number) => String(fs.reduce((n, x) => n + f(x), 0));
  return {
    'snapshot-id': safeNumber(p.head.id),
    ...(p.parentId === undefined ? {} : { 'parent-snapshot-id': safeNumber(p.parentId) }),
    'sequence-number': Number(p.sequenceNumber),
    'timestamp-ms': Number(p.head.committedAtMicros / 1000n),
    'manifest-list': p.manifestList,
    summary: {
      operation: removed === 0 && deletes.length === 0 ? 'append' : added.length === 0 && changeRows.length === 0 ? 'delete' : 'overwrite',
      'added-data-files': String(added.length + changeRows.length),
      'deleted-data-files': String(removed),
      'added-records': sum([...added.map((e) => e.file), ...changeRows], (f) => f.rowCount),
      'added-delete-files': String(deletes.length),
      'added-equality-delete-files': String(deletes.length),
      'added-equality-deletes': sum(deletes, (f) => f.rowCount),
      'total-data-files': String(p.files.length + changeRows.length),
      'total-records': sum([...p.files, ...changeRows], (f) => f.rowCount),
      'total-files-size': sum([...p.files, ...p.changes], (f) => f.sizeBytes),
      'total-delete-files': String(deletes.length),
      'total-equality-deletes': sum(deletes, (f) => f.rowCount),
      'total-position-deletes': '0',
      'floe.snapshot-id': String(p.head.id),
      [BASE_DIGEST_KEY]: p.digest,
      ...(p.changeDigest === undefined ? {} : { [CHANGE_DIGEST_KEY]: p.changeDigest }),
    },
    // The schema the files are shown with (the head's own may predate every schema this export lists).
    'schema-id': p.schemaId,
  };
}

/**
 * Deletes what the new version no longer needs: metadata files older than the ones its
 * metadata-log keeps; the manifest lists, manifests and change-store files of snapshots the
 * previous version listed and this one does not (expired in Floe, whose data files expiry
 * may delete, or superseded); and, once past a grace period, those no version named (an
 * export that crashed before its vN, or that lost a race with another exporter, which may
 * still be about to name its files).
 */
async function removeUnreferenced(
  storage: Storage, tableId: number, version: number, json: IcebergTableMetadataJson, previous: IcebergTableMetadataJson | undefined, nowMicros: bigint,
): Promise<void> {
  const listNames = (j: IcebergTableMetadataJson) => j.snapshots.map((s) => s['manifest-list'].slice(s['manifest-list'].lastIndexOf('/') + 1).replace(/\.avro$/, ''));
  // A list's own file, its manifests (-m<i>.avro) and its change-store files (-p<i>-….parquet).
  const ofList = (lists: readonly string[], name: string) => lists.some((l) => name === `${l}.avro` || name.startsWith(`${l}-`));
  const keep = listNames(json);
  const namedBefore = previous === undefined ? [] : listNames(previous);
  for (const prefix of [icebergMetadataPrefix(tableId), icebergDataPrefix(tableId)]) {
    for (const o of await storage.list(prefix)) {
      const name = o.key.slice(prefix.length);
      const v = versionOfMetadataFile(name);
      const stale = v !== undefined ? v < version - PREVIOUS_VERSIONS_MAX
        : /\.(avro|parquet)$/.test(name) && !ofList(keep, name) && (ofList(namedBefore, name) || nowMicros - o.modifiedMicros > UNNAMED_FILE_GRACE_MICROS);
      if (stale) await storage.delete(o.key);
    }
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
