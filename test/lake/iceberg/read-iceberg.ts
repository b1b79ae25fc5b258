import assert from 'node:assert/strict';
import avro from 'avsc';
import type { Storage } from '../../../src/lake/storage/storage.js';
import type { SpecField } from './iceberg-spec-schemas.js';
import {
  DATA_FILE_V2, FIELD_SUMMARY_V2, MANIFEST_ENTRY_V2, MANIFEST_FILE_V2, MANIFEST_METADATA_V2, SNAPSHOT_V2_REQUIRED, TABLE_METADATA_V2_REQUIRED,
} from './iceberg-spec-schemas.js';

/** What a test reads back: decoded with plain avsc (its own long type), checked against the spec's fields. */
export interface AvroFile {
  readonly meta: Record<string, string>;
  readonly schema: Record<string, unknown>;
  readonly records: Record<string, unknown>[];
}

/** Parsed JSON and decoded Avro records, read loosely as a foreign reader would. */
export type Json = Record<string, any>;

export async function decodeAvro(bytes: Uint8Array): Promise<AvroFile> {
  const decoder = new avro.streams.BlockDecoder();
  const records: Record<string, unknown>[] = [];
  let meta: Record<string, string> = {};
  decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
    meta = Object.fromEntries(Object.entries(header.meta).map(([k, v]) => [k, v.toString('utf8')]));
  });
  decoder.on('data', (r: Record<string, unknown>) => records.push(r));
  await new Promise<void>((resolve, reject) => { decoder.on('end', resolve); decoder.on('error', reject); decoder.end(Buffer.from(bytes)); });
  return { meta, schema: JSON.parse(meta['avro.schema']!) as Record<string, unknown>, records };
}

/** The record's fields agree with the spec's list: ids, optionality, types; and no field the spec lacks. */
function checkRecordSchema(record: Json, spec: readonly SpecField[], where: string, nested: Record<string, readonly SpecField[]> = {}): void {
  assert.equal(record['type'], 'record', where);
  const fields = record['fields'] as Json[];
  for (const f of fields) assert.ok(spec.some(([n]) => n === f['name']), `${where}: field ${f['name']} is not in the spec`);
  for (const [name, id, required, type] of spec) {
    const f = fields.find((x) => x['name'] === name);
    if (f === undefined) {
      assert.ok(!required, `${where}: required field ${name} is missing`);
      continue;
    }
    assert.equal(f['field-id'], id, `${where}.${name} field-id`);
    let t = f['type'];
    if (required) assert.ok(!Array.isArray(t), `${where}.${name} is required, not a union`);
    else {
      assert.ok(Array.isArray(t) && t.length === 2 && t[0] === 'null', `${where}.${name} is optional: ["null", T]`);
      assert.equal(f['default'], null, `${where}.${name} defaults to null`);
      t = t[1];
    }
    const map = /^map<(\d+):(\w+),(\d+):(\w+)>$/.exec(type);
    const list = /^list<(\d+):(\w+)>$/.exec(type);
    if (map !== null) {
      assert.equal(t.type, 'array', `${where}.${name} map as array`);
      assert.equal(t.logicalType, 'map');
      const [k, v] = t.items.fields as Json[];
      assert.deepEqual([k!['name'], k!['field-id'], k!['type'], v!['name'], v!['field-id'], v!['type']],
        ['key', Number(map[1]), map[2], 'value', Number(map[3]), map[4]], `${where}.${name} key/value`);
    } else if (list !== null) {
      assert.equal(t.type, 'array', `${where}.${name} list`);
      assert.equal(t['element-id'], Number(list[1]));
      if (list[2] === 'struct') checkRecordSchema(t.items, nested[name]!, `${where}.${name}.element`);
      else assert.equal(t.items, list[2]);
    } else if (type === 'struct') {
      assert.equal(t.type, 'record', `${where}.${name} struct`);
      if (nested[name] !== undefined) checkRecordSchema(t, nested[name]!, `${where}.${name}`);
    } else {
      assert.equal(t, type, `${where}.${name} type`);
    }
  }
}

function checkRequiredValues(value: Json, spec: readonly SpecField[], where: string): void {
  for (const [name, , required] of spec) if (required) assert.notEqual(value[name] ?? null, null, `${where}: ${name} is set`);
}

export interface ManifestEntry {
  readonly status: number;
  readonly snapshotId: number | null;
  readonly sequenceNumber: number | null;
  readonly fileSequenceNumber: number | null;
  readonly dataFile: Json;
  /** The data sequence number a reader uses: the entry's, else inherited from its manifest. */
  readonly dataSequenceNumber?: number;
}

/** A manifest, checked against the spec (schema, metadata keys, required values), and its entries. */
export async function readManifest(bytes: Uint8Array, partitionFieldIds: readonly number[]): Promise<{ meta: Record<string, string>; entries: ManifestEntry[] }> {
  const f = await decodeAvro(bytes);
  checkRecordSchema(f.schema, MANIFEST_ENTRY_V2, 'manifest_entry');
  const dataFile = (f.schema['fields'] as Json[]).find((x) => x['name'] === 'data_file')!['type'];
  checkRecordSchema(dataFile, DATA_FILE_V2, 'data_file');
  const partition = (dataFile.fields as Json[]).find((x) => x['name'] === 'partition')!['type'];
  assert.deepEqual((partition.fields as Json[]).map((x) => x['field-id']), partitionFieldIds, 'partition struct field ids are the spec\'s');
  for (const k of MANIFEST_METADATA_V2) assert.ok(f.meta[k] !== undefined, `manifest metadata ${k}`);
  assert.equal(f.meta['format-version'], '2');
  assert.ok(f.meta['content'] === 'data' || f.meta['content'] === 'deletes', `manifest content ${f.meta['content']}`);
  const entries = f.records.map((r, i) => {
    checkRequiredValues(r, MANIFEST_ENTRY_V2, `entry ${i}`);
    checkRequiredValues(r['data_file'] as Json, DATA_FILE_V2, `entry ${i}.data_file`);
    return {
      status: r['status'] as number, snapshotId: r['snapshot_id'] as number | null, sequenceNumber: r['sequence_number'] as number | null,
      fileSequenceNumber: r['file_sequence_number'] as number | null, dataFile: r['data_file'] as Json,
    };
  });
  return { meta: f.meta, entries };
}

export async function readManifestList(bytes: Uint8Array): Promise<Json[]> {
  const f = await decodeAvro(bytes);
  checkRecordSchema(f.schema, MANIFEST_FILE_V2, 'manifest_file', { partitions: FIELD_SUMMARY_V2 });
  f.records.forEach((r, i) => checkRequiredValues(r, MANIFEST_FILE_V2, `manifest_file ${i}`));
  return f.records;
}

/** The newest vN.metadata.json (by listing), with v2's required fields checked, and the hint. */
export async function readNewestMetadata(storage: Storage, tableId: number): Promise<{ version: number; json: Json; hint: string }> {
  const prefix = `iceberg/${tableId}/metadata/`;
  const versions = (await storage.list(prefix)).map((o) => /v(\d+)\.metadata\.json$/.exec(o.key)).filter((m) => m !== null).map((m) => Number(m![1]));
  assert.ok(versions.length > 0, 'a metadata version exists');
  const version = Math.max(...versions);
  const json = JSON.parse(new TextDecoder().decode(await storage.get(`${prefix}v${version}.metadata.json`))) as Json;
  for (const k of TABLE_METADATA_V2_REQUIRED) assert.ok(json[k] !== undefined, `metadata.json has ${k}`);
  assert.equal(json['format-version'], 2);
  assert.ok(json['schemas'].some((s: Json) => s['schema-id'] === json['current-schema-id']), 'current schema listed');
  assert.ok(json['partition-specs'].some((s: Json) => s['spec-id'] === json['default-spec-id']), 'default spec listed');
  for (const s of json['snapshots'] as Json[]) {
    for (const k of SNAPSHOT_V2_REQUIRED) assert.ok(s[k] !== undefined, `snapshot has ${k}`);
    assert.ok(s['sequence-number'] <= json['last-sequence-number']);
    assert.ok(s['summary']['operation'] !== undefined);
  }
  assert.equal(json['refs']['main']['snapshot-id'], json['current-snapshot-id']);
  const hint = new TextDecoder().decode(await storage.get(`${prefix}version-hint.text`));
  return { version, json, hint };
}

/** The live data files a snapshot's manifests list, with their entries, every Avro file checked on the way. */
export async function snapshotFiles(storage: Storage, keyOf: (uri: string) => string, metadata: Json, snapshotId: number): Promise<ManifestEntry[]> {
  const snap = (metadata['snapshots'] as Json[]).find((s) => s['snapshot-id'] === snapshotId);
  assert.ok(snap !== undefined, `snapshot ${snapshotId} is listed`);
  const spec = (metadata['partition-specs'] as Json[]).find((s) => s['spec-id'] === metadata['default-spec-id'])!;
  const out: ManifestEntry[] = [];
  for (const m of await readManifestList(await storage.get(keyOf(snap['manifest-list'])))) {
    assert.equal(m['sequence_number'], snap['sequence-number'], 'a manifest written by the snapshot has its sequence number');
    const { meta, entries } = await readManifest(await storage.get(keyOf(m['manifest_path'] as string)), (spec['fields'] as Json[]).map((f) => f['field-id']));
    assert.equal(m['content'], meta['content'] === 'deletes' ? 1 : 0, 'the list and the manifest agree on its content');
    assert.equal(m['added_files_count'], entries.filter((e) => e.status === 1).length);
    assert.equal(m['existing_files_count'], entries.filter((e) => e.status === 0).length);
    for (const e of entries) {
      if (e.status === 0) assert.ok(e.sequenceNumber !== null && e.fileSequenceNumber !== null, 'EXISTING entries carry their sequence numbers');
      const content = e.dataFile['content'] as number;
      if (meta['content'] === 'deletes') {
        assert.equal(content, 2, 'a delete manifest lists equality delete files');
        assert.ok(Array.isArray(e.dataFile['equality_ids']) && (e.dataFile['equality_ids'] as number[]).length > 0, 'equality_ids are set');
      } else {
        assert.equal(content, 0, 'a data manifest lists data files');
      }
      const dataSequenceNumber = e.sequenceNumber ?? (m['sequence_number'] as number);
      assert.ok(dataSequenceNumber >= (m['min_sequence_number'] as number) && dataSequenceNumber <= snap['sequence-number']);
      out.push({ ...e, dataSequenceNumber });
    }
  }
  return out.filter((e) => e.status !== 2);
}
