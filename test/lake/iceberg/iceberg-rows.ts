import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import type { Storage } from '../../../src/lake/storage/storage.js';
import { readRows } from '../helpers/read-table.js';
import type { Row } from '../helpers/read-table.js';
import type { Json, ManifestEntry } from './read-iceberg.js';
import { readNewestMetadata, snapshotFiles } from './read-iceberg.js';

/*
 * Reading exported tables as an Iceberg v2 reader would, with DuckDB's read_parquet as the
 * Parquet reader: columns found through the name mapping, and equality deletes applied by
 * the spec's rule (a delete applies to data files of the same partition whose data sequence
 * number is strictly lower), written here as SQL, not taken from Floe.
 */

export function localKeyOf(root: string): (uri: string) => string {
  return (uri) => {
    assert.match(uri, /^file:\/\/\//, 'a local file is a file:/// URI');
    return relative(root, fileURLToPath(uri)).split('\\').join('/');
  };
}

export function sortRows(rows: Row[]): Row[] {
  const key = (r: Row) => JSON.stringify(Object.values(r), (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Floe's rows at a snapshot, in the columns the Iceberg schema shows. */
export async function floeRowsAt(wh: Warehouse, t: TableMetadata, snapshotId: number, names: readonly string[]): Promise<Row[]> {
  return sortRows(await readRows(wh, { table: t, at: { kind: 'snapshot', id: BigInt(snapshotId) }, projection: names }));
}

export function namesOf(json: Json): string[] {
  return currentSchemaFields(json).map((f) => f['name'] as string);
}

function currentSchemaFields(json: Json): Json[] {
  return (json['schemas'] as Json[]).find((s) => s['schema-id'] === json['current-schema-id'])!['fields'] as Json[];
}

/** `"<physical column>" AS "<name>"` for the fields with these ids, through the table's name mapping. */
function mappedColumns(json: Json, fields: readonly Json[]): string {
  const mapping = JSON.parse(json['properties']['schema.name-mapping.default'] as string) as { 'field-id': number; names: string[] }[];
  return fields.map((f) => `"${mapping.find((m) => m['field-id'] === f['id'])!.names[0]}" AS "${f['name']}"`).join(', ');
}

const quoted = (p: string) => `'${p.replace(/'/g, "''")}'`;

/** The rows DuckDB's read_parquet finds in exactly these data files, columns renamed by the table's name mapping. */
export async function duckRows(duck: DuckDBConnection, metadata: Json, paths: readonly string[]): Promise<Row[]> {
  if (paths.length === 0) return [];
  const reader = await duck.runAndReadAll(`SELECT ${mappedColumns(metadata, currentSchemaFields(metadata))} FROM read_parquet([${paths.map(quoted).join(', ')}])`);
  return sortRows(reader.getRowObjectsJS() as Row[]);
}

/** A snapshot's rows as a v2 reader merges them: its data files' rows less those an equality delete file removes. */
export async function icebergRows(duck: DuckDBConnection, metadata: Json, entries: readonly ManifestEntry[]): Promise<Row[]> {
  const fields = currentSchemaFields(metadata);
  const part = (e: ManifestEntry) => quoted(JSON.stringify(e.dataFile['partition'], (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  const data = entries.filter((e) => e.dataFile['content'] === 0);
  if (data.length === 0) return [];
  const deletes = entries.filter((e) => e.dataFile['content'] === 2);
  const dataSql = data.map((e) => `SELECT ${mappedColumns(metadata, fields)}, ${e.dataSequenceNumber} AS "__seq", ${part(e)} AS "__part"
    FROM read_parquet(${quoted(fileURLToPath(e.dataFile['file_path'] as string))})`).join(' UNION ALL ');
  const names = fields.map((f) => `d."${f['name']}"`).join(', ');
  if (deletes.length === 0) return sortRows((await duck.runAndReadAll(`SELECT ${names} FROM (${dataSql}) d`)).getRowObjectsJS() as Row[]);
  const ids = deletes[0]!.dataFile['equality_ids'] as number[];
  assert.ok(deletes.every((e) => JSON.stringify(e.dataFile['equality_ids']) === JSON.stringify(ids)), 'every delete file matches on the same fields');
  const keyFields = ids.map((id) => fields.find((f) => f['id'] === id)!);
  const deleteSql = deletes.map((e) => `SELECT ${mappedColumns(metadata, keyFields)}, ${e.dataSequenceNumber} AS "__seq", ${part(e)} AS "__part"
    FROM read_parquet(${quoted(fileURLToPath(e.dataFile['file_path'] as string))})`).join(' UNION ALL ');
  const spec = (metadata['partition-specs'] as Json[]).find((s) => s['spec-id'] === metadata['default-spec-id'])!;
  const samePartition = (spec['fields'] as Json[]).length === 0 ? 'true' : 'x."__part" = d."__part"';
  const matches = keyFields.map((f) => `x."${f['name']}" = d."${f['name']}"`).join(' AND ');
  const sql = `SELECT ${names} FROM (${dataSql}) d
    WHERE NOT EXISTS (SELECT 1 FROM (${deleteSql}) x WHERE ${matches} AND x."__seq" > d."__seq" AND ${samePartition})`;
  return sortRows((await duck.runAndReadAll(sql)).getRowObjectsJS() as Row[]);
}

/** The newest exported version and its current snapshot's live files, every Avro file checked on the way. */
export async function exported(t: TableMetadata, storage: Storage, keyOf: (uri: string) => string) {
  const { json, version, hint } = await readNewestMetadata(storage, t.id);
  assert.equal(hint, String(version), 'version-hint.text names the newest version');
  const current = json['current-snapshot-id'] as number;
  const entries = await snapshotFiles(storage, keyOf, json, current);
  return { json, version, current, entries, paths: entries.map((e) => fileURLToPath(e.dataFile['file_path'] as string)), keyOf };
}
