import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StorageConfig } from '../storage/storage-config.js';

/**
 * Where a table's Iceberg metadata lives: `iceberg/<tableId>/metadata/` in the table's storage,
 * beside `data/<tableId>/` and outside it, so the data directory's orphan cleanup never
 * sees these files. The table's Iceberg location is `iceberg/<tableId>`, the layout a
 * file-system Iceberg reader expects (`<location>/metadata/version-hint.text`).
 */
export function icebergTableKey(tableId: number): string {
  return `iceberg/${tableId}`;
}

export function icebergMetadataPrefix(tableId: number): string {
  return `${icebergTableKey(tableId)}/metadata/`;
}

/** Data files the export writes itself: the change store as equality deletes and rows (export-iceberg-metadata.ts). */
export function icebergDataPrefix(tableId: number): string {
  return `${icebergTableKey(tableId)}/data/`;
}

export const VERSION_HINT_FILE = 'version-hint.text';

export function metadataFileName(version: number): string {
  return `v${version}.metadata.json`;
}

/** The version of a `vN.metadata.json` name, or undefined for any other file. */
export function versionOfMetadataFile(name: string): number | undefined {
  const m = /^v([1-9][0-9]*)\.metadata\.json$/.exec(name);
  return m === null ? undefined : Number(m[1]);
}

/** The absolute URI Iceberg readers open for a storage key: file:///… on local disk, s3://bucket/prefix/… on S3. */
export function storageUri(config: StorageConfig, key: string): string {
  if (config.kind === 'local') return pathToFileURL(resolve(config.root, key)).href;
  return `s3://${config.bucket}/${config.prefix === '' ? '' : `${config.prefix}/`}${key}`;
}
