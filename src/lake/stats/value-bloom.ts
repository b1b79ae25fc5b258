import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { columnReader } from '../arrow/column-reader.js';
import { fmix32 } from '../bucket/murmur3.js';

/**
 * A per-file Bloom filter over one column's values: what a plain index (CREATE INDEX)
 * keeps for every data file, in the file's catalog stats (`bloom`), so that an
 * equality or IN lookup on the column skips files that cannot hold the value without
 * opening them. About 10 bits per distinct value (1% false positives), at most
 * MAX_BLOOM_BYTES per file; false positives only cost a read, never a wrong answer.
 *
 * Encoded as `<hashes>:<base64 bits>`. Values are hashed by their canonical text
 * (bloomKeyOf), so a filter's value and a written value meet on the same bits.
 */
export const MAX_BLOOM_BYTES = 64 * 1024;
const MIN_BLOOM_BYTES = 64;
const BITS_PER_VALUE = 10;

/**
 * The canonical key of a value of `type`, or undefined when the type's equality is not
 * plain identity of that key (floats' -0/NaN, numeric's scale, bpchar's padding,
 * collations): such columns get no filter.
 */
export function bloomKeyOf(type: SqlType, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  switch (type.kind) {
    case 'int2': case 'int4': case 'int8': case 'date': case 'time': case 'timestamp': case 'timestamptz': case 'timetz': case 'oid':
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'number' && Number.isInteger(value)) return String(value);
      return undefined;
    case 'text': case 'varchar': case 'name':
      return typeof value === 'string' ? value : undefined;
    case 'uuid':
      return typeof value === 'string' ? value.toLowerCase() : undefined;
    case 'bool':
      return typeof value === 'boolean' ? String(value) : undefined;
    default:
      return undefined;
  }
}

const BLOOM_KINDS: ReadonlySet<SqlType['kind']> = new Set(['int2', 'int4', 'int8', 'date', 'time', 'timestamp', 'timestamptz', 'timetz', 'oid', 'text', 'varchar', 'name', 'uuid', 'bool']);

/** Whether a column of this type can have a filter (bloomKeyOf gives its values keys). */
export function bloomSupported(type: SqlType): boolean {
  return BLOOM_KINDS.has(type.kind);
}

/** Two independent 32-bit hashes of a key (FNV-1a with two offsets, then murmur3's finalizer). */
function hashPair(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x2545f491;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return [fmix32(a), fmix32(b) | 1];
}

/** A filter over the keys, sized for their number; undefined when there are none. */
export function buildValueBloom(keys: ReadonlySet<string>): string | undefined {
  if (keys.size === 0) return undefined;
  let bytes = MIN_BLOOM_BYTES;
  while (bytes < MAX_BLOOM_BYTES && bytes * 8 < keys.size * BITS_PER_VALUE) bytes *= 2;
  const bits = new Uint8Array(bytes);
  const m = bytes * 8;
  const k = Math.max(1, Math.min(8, Math.round((m / keys.size) * Math.LN2)));
  for (const key of keys) {
    const [h1, h2] = hashPair(key);
    for (let i = 0; i < k; i++) {
      const bit = ((h1 + Math.imul(i, h2)) >>> 0) % m;
      bits[bit >>> 3]! |= 1 << (bit & 7);
    }
  }
  return `${k}:${Buffer.from(bits).toString('base64')}`;
}

const decoded = new Map<string, { k: number; bits: Uint8Array }>();
const DECODED_KEPT = 4096;

function decode(encoded: string): { k: number; bits: Uint8Array } | undefined {
  let d = decoded.get(encoded);
  if (d !== undefined) return d;
  const at = encoded.indexOf(':');
  const k = Number(encoded.slice(0, at));
  if (at < 0 || !Number.isInteger(k) || k < 1) return undefined;
  d = { k, bits: new Uint8Array(Buffer.from(encoded.slice(at + 1), 'base64')) };
  if (d.bits.length === 0) return undefined;
  if (decoded.size >= DECODED_KEPT) decoded.clear();
  decoded.set(encoded, d);
  return d;
}

/** False only when the file whose filter this is holds no row with this value. */
export function bloomMayHold(encoded: string, type: SqlType, value: unknown): boolean {
  const key = bloomKeyOf(type, value);
  const d = key === undefined ? undefined : decode(encoded);
  if (key === undefined || d === undefined) return true;
  const m = d.bits.length * 8;
  const [h1, h2] = hashPair(key);
  for (let i = 0; i < d.k; i++) {
    const bit = ((h1 + Math.imul(i, h2)) >>> 0) % m;
    if (((d.bits[bit >>> 3]! >> (bit & 7)) & 1) === 0) return false;
  }
  return true;
}

/** The filter over one column (by its physical name) of a file's batches. */
export function bloomOfBatches(batches: readonly RecordBatch[], name: string, type: SqlType): string | undefined {
  if (!bloomSupported(type)) return undefined;
  const keys = new Set<string>();
  for (const b of batches) {
    const vector = b.getChild(name);
    if (vector === null) continue;
    const r = columnReader(vector, type);
    for (let i = 0; i < b.numRows; i++) {
      const key = bloomKeyOf(type, r.get(i));
      if (key !== undefined) keys.add(key);
    }
  }
  return buildValueBloom(keys);
}
