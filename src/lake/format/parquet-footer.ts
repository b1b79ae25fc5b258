/**
 * The Parquet footer (FileMetaData, Thrift compact protocol) read in JS: the row
 * groups with, per column chunk, its physical type, compressed size and raw
 * statistics. parquet-wasm exposes row-group metadata but no statistics
 * (shared/NOTES.md), and going through WASM for a few fields costs more than
 * reading them here. Decoding the statistics into SQL values is the scan's job
 * (lake/scan/row-group-stats.ts).
 */

/** One column chunk as the footer describes it. */
export interface FooterChunk {
  /** Parquet physical type (0 BOOLEAN, 1 INT32, 2 INT64, ...); -1 when absent. */
  readonly physical: number;
  /** total_compressed_size: the bytes a read of this chunk fetches. */
  readonly compressedBytes: number;
  /** max_value/min_value in the column's sort order, as stored. */
  readonly min: Uint8Array | undefined;
  readonly max: Uint8Array | undefined;
  readonly nullCount: number | undefined;
}

export interface FooterRowGroup {
  readonly numRows: number;
  /** By top-level column name (chunks of nested columns are left out). */
  readonly chunks: ReadonlyMap<string, FooterChunk>;
}

/** The row groups of a footer (any tail of the file holding it and the closing magic); undefined when it cannot be read. */
export function readFooterRowGroups(bytes: Uint8Array): FooterRowGroup[] | undefined {
  const n = bytes.length;
  if (n < 12 || bytes[n - 4] !== 0x50 || bytes[n - 3] !== 0x41 || bytes[n - 2] !== 0x52 || bytes[n - 1] !== 0x31) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(n - 8, true);
  if (len + 8 > n) return undefined;
  try {
    return fileMetaData(new CompactReader(bytes, view, n - 8 - len));
  } catch {
    return undefined;
  }
}

/** Parsed footers by file: data files never change once written. */
const footerCache = new Map<string, FooterRowGroup[] | undefined>();
const FOOTER_CACHE_FILES = 256;

/**
 * readFooterRowGroups, remembered per file (`path` and the footer's length key it):
 * a worker runs several tasks over row-group ranges of the same base file, and
 * parsing a large footer (92 row groups × 17 columns for a lineitem file at SF 1)
 * took longer than the filter it serves.
 */
export function cachedFooterRowGroups(path: string, footer: Uint8Array): FooterRowGroup[] | undefined {
  const key = `${path}\0${footer.length}`;
  if (footerCache.has(key)) return footerCache.get(key);
  const groups = readFooterRowGroups(footer);
  if (footerCache.size >= FOOTER_CACHE_FILES) footerCache.delete(footerCache.keys().next().value!);
  footerCache.set(key, groups);
  return groups;
}

function fileMetaData(r: CompactReader): FooterRowGroup[] {
  const groups: FooterRowGroup[] = [];
  r.struct((id, type) => {
    if (id !== 4 || type !== T_LIST) return false;
    r.list(() => groups.push(rowGroup(r)));
    return true;
  });
  return groups;
}

function rowGroup(r: CompactReader): FooterRowGroup {
  let numRows = 0;
  const chunks = new Map<string, FooterChunk>();
  r.struct((id, type) => {
    if (id === 1 && type === T_LIST) {
      r.list(() => {
        r.struct((cid, ctype) => {
          if (cid !== 3 || ctype !== T_STRUCT) return false;
          const m = columnMetaData(r);
          if (m !== undefined) chunks.set(m.name, m.chunk);
          return true;
        });
      });
      return true;
    }
    if (id === 3 && type === T_I64) { numRows = Number(r.long()); return true; }
    return false;
  });
  return { numRows, chunks };
}

function columnMetaData(r: CompactReader): { name: string; chunk: FooterChunk } | undefined {
  let physical = -1;
  let compressedBytes = 0;
  const path: string[] = [];
  let stats: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } = {};
  r.struct((id, type) => {
    if (id === 1 && type === T_I32) { physical = r.int(); return true; }
    if (id === 3 && type === T_LIST) { r.list(() => path.push(Buffer.from(r.binary()).toString('utf8'))); return true; }
    if (id === 7 && type === T_I64) { compressedBytes = Number(r.long()); return true; }
    if (id === 12 && type === T_STRUCT) {
      const s: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } = {};
      r.struct((sid, stype) => {
        // 5/6 are max_value/min_value in the column's sort order; 1/2 (deprecated) are signed-byte ordered: not used.
        if (sid === 5 && stype === T_BINARY) { s.max = r.binary(); return true; }
        if (sid === 6 && stype === T_BINARY) { s.min = r.binary(); return true; }
        if (sid === 3 && stype === T_I64) { s.nullCount = Number(r.long()); return true; }
        return false;
      });
      stats = s;
      return true;
    }
    return false;
  });
  if (path.length !== 1) return undefined;
  return { name: path[0]!, chunk: { physical, compressedBytes, min: stats.min, max: stats.max, nullCount: stats.nullCount } };
}

// Thrift compact type ids.
const T_STOP = 0, T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7, T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12;

class CompactReader {
  pos: number;
  constructor(readonly b: Uint8Array, readonly view: DataView, start: number) { this.pos = start; }
  byte(): number {
    if (this.pos >= this.b.length) throw new Error('footer overrun');
    return this.b[this.pos++]!;
  }
  varint(): bigint {
    let shift = 0n; let out = 0n;
    for (;;) {
      const x = this.byte();
      out |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  /** A zigzag varint that fits a JS number (field ids, i32, sizes). */
  int(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) break;
      shift += 7;
    }
    return out % 2 === 0 ? out / 2 : -(out + 1) / 2;
  }
  long(): bigint {
    const u = this.varint();
    return (u & 1n) === 0n ? u >> 1n : -((u + 1n) >> 1n);
  }
  /** An unsigned varint as a number (sizes, counts, skipped integers): no BigInt on the hot path. */
  size(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) return out;
      shift += 7;
    }
  }
  binary(): Uint8Array {
    const len = this.size();
    if (this.pos + len > this.b.length) throw new Error('footer overrun');
    const out = this.b.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  /** Iterates a struct's fields: calls `field(id, type)`, which must consume the value or return false to skip it. */
  struct(field: (id: number, type: number) => boolean): void {
    let last = 0;
    for (;;) {
      const h = this.byte();
      const type = h & 0x0f;
      if (type === T_STOP) return;
      const delta = h >> 4;
      const id = delta === 0 ? this.int() : last + delta;
      last = id;
      if (!field(id, type)) this.skip(type);
    }
  }
  list(each: (type: number, i: number) => void): number {
    const h = this.byte();
    let n = h >> 4;
    if (n === 15) n = this.size();
    const type = h & 0x0f;
    for (let i = 0; i < n; i++) each(type, i);
    return n;
  }
  skip(type: number): void {
    switch (type) {
      case T_TRUE: case T_FALSE: return;
      case T_BYTE: this.pos++; return;
      case T_I16: case T_I32: case T_I64: this.size(); return;
      case T_DOUBLE: this.pos += 8; return;
      case T_BINARY: this.binary(); return;
      case T_LIST: case T_SET: this.list((t) => (t === T_TRUE || t === T_FALSE ? this.pos++ : this.skip(t))); return;
      case T_MAP: {
        const n = this.size();
        if (n === 0) return;
        const kv = this.byte();
        for (let i = 0; i < n; i++) { this.skip(kv >> 4); this.skip(kv & 0x0f); }
        return;
      }
      case T_STRUCT: this.struct(() => false); return;
      default: throw new Error(`unknown thrift type ${type}`);
    }
  }
}

