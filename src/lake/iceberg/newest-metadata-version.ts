import type { Storage } from '../storage/storage.js';
import { icebergMetadataPrefix, metadataFileName, storageUri, versionOfMetadataFile } from './iceberg-locations.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { IcebergTableMetadataJson } from './table-metadata-json.js';

/** The newest `vN.metadata.json` under a table's metadata prefix, parsed; undefined when none is written yet. */
export async function readNewestMetadataVersion(storage: Storage, prefix: string): Promise<{ version: number; json: IcebergTableMetadataJson } | undefined> {
  let newest: number | undefined;
  for (const o of await storage.list(prefix)) {
    const v = versionOfMetadataFile(o.key.slice(prefix.length));
    if (v !== undefined && (newest === undefined || v > newest)) newest = v;
  }
  if (newest === undefined) return undefined;
  const json = JSON.parse(new TextDecoder().decode(await storage.get(`${prefix}${metadataFileName(newest)}`))) as IcebergTableMetadataJson;
  return { version: newest, json };
}

/** What an Iceberg REST catalog's loadTable answers: the newest metadata file's URI and its contents. */
export interface IcebergTableLoad {
  readonly metadataLocation: string;
  readonly metadata: IcebergTableMetadataJson;
}

export async function loadIcebergTable(storage: Storage, config: StorageConfig, tableId: number): Promise<IcebergTableLoad | undefined> {
  const prefix = icebergMetadataPrefix(tableId);
  const newest = await readNewestMetadataVersion(storage, prefix);
  if (newest === undefined) return undefined;
  return { metadataLocation: storageUri(config, `${prefix}${metadataFileName(newest.version)}`), metadata: newest.json };
}
