import { randomBytes } from 'node:crypto';
import avro from 'avsc';

/**
 * Avro long as bigint: avsc's default long is a JS number, which loses ids and counts past
 * 2^53. Every long in a manifest or manifest list is written and read through this type.
 */
const bigintLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n);
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

function typeOf(schema: object): avro.Type {
  return avro.Type.forSchema(schema as avro.Schema, { registry: { long: bigintLong } });
}

/** The container header (Avro spec, "Object Container Files"). */
const headerType = avro.Type.forSchema({
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
});
const longType = avro.Type.forSchema('long');
const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);

/**
 * An Avro object container file (uncompressed, one block) holding `records`, with string
 * key-value metadata. The header is written here rather than by avsc's BlockEncoder, which
 * writes its own normalized schema and so drops the `field-id` attributes Iceberg readers
 * map fields by; the records themselves are avsc's encoding.
 */
export function encodeAvroContainer(schema: object, records: readonly unknown[], metadata: Readonly<Record<string, string>>): Uint8Array {
  const type = typeOf(schema);
  const meta: Record<string, Buffer> = { 'avro.schema': Buffer.from(JSON.stringify(schema), 'utf8'), 'avro.codec': Buffer.from('null') };
  for (const [k, v] of Object.entries(metadata)) meta[k] = Buffer.from(v, 'utf8');
  const sync = randomBytes(16);
  const parts: Buffer[] = [headerType.toBuffer({ magic: MAGIC, meta, sync })];
  if (records.length > 0) {
    const body = Buffer.concat(records.map((r) => type.toBuffer(r)));
    parts.push(longType.toBuffer(records.length), longType.toBuffer(body.length), body, sync);
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** The records of an Avro container this module wrote, longs as bigint (the writer's schema from the header). */
export async function decodeAvroContainer(bytes: Uint8Array): Promise<unknown[]> {
  const decoder = new avro.streams.BlockDecoder({ parseHook: (schema: avro.Schema) => typeOf(schema as object) });
  const records: unknown[] = [];
  const done = new Promise<void>((resolve, reject) => { decoder.on('end', resolve); decoder.on('error', reject); });
  decoder.on('data', (r: unknown) => records.push(r));
  decoder.end(Buffer.from(bytes));
  await done;
  return records;
}
