import { Data, Field, Schema, Struct, makeData } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { formatType } from '../../common/sql-type.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { arrowFieldOf, arrowTypeOf, isDecimalNumeric } from './arrow-type.js';
import { parseDecimal, parseDecimalNumber } from './decimal-text.js';
import { flattenArray, hasMultidimensional, isMultidimArrowType, multidimArrowType } from './multidim-array.js';
import { recordBatchOf } from './record-batch-of.js';
import { encodeInto } from './utf8.js';
import { uuidToBytes } from './uuid-bytes.js';

export interface BatchColumn {
  readonly name: string;
  readonly type: SqlType;
  readonly fieldId: number;
  readonly nullable: boolean;
}

/**
 * Builds a RecordBatch from canonical values (src/common/sql-type.ts), one array per
 * column. Buffers are filled directly (typed arrays, one UTF-8 byte buffer per string
 * column), without Arrow's per-value builders. int8/time/timestamp also accept safe
 * integer numbers; every other JavaScript type mismatch is 42804, unparsable text
 * (numeric, uuid) 22P02, out-of-range 22003, NULL in a NOT NULL column 23502.
 */
export function buildBatch(columns: readonly BatchColumn[], values: readonly (readonly unknown[])[]): RecordBatch {
  if (values.length !== columns.length) {
    throw new FloeError(SqlState.internalError, `expected ${columns.length} columns of values, got ${values.length}`);
  }
  const numRows = columns.length === 0 ? 0 : values[0]!.length;
  const fields: Field[] = [];
  const children: Data[] = [];
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!;
    const vals = values[c]!;
    if (vals.length !== numRows) {
      throw new FloeError(SqlState.internalError, `column "${col.name}" has ${vals.length} values, expected ${numRows}`);
    }
    fields.push(arrowFieldOf(col));
    children.push(buildColumnData(col.type, vals, col.name, col.nullable));
  }
  return batchFromData(fields, children, numRows);
}

/** A RecordBatch over already-built column Data. */
export function batchFromData(fields: readonly Field[], children: readonly Data[], numRows: number): RecordBatch {
  // An array column holding a multi-dimensional value is a Struct in its data (multidim-array.ts), whatever the declared field says.
  fields = fields.map((f, i) => (children[i] !== undefined && f.type !== children[i]!.type && isMultidimArrowType(children[i]!.type)
    ? new Field(f.name, children[i]!.type, f.nullable, f.metadata) : f));
  const schema = new Schema(fields.slice());
  const structData = mk({ type: new Struct(fields.slice()), length: numRows, nullCount: 0, children: children.slice() });
  return recordBatchOf(schema, structData as Data<Struct>);
}

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

/** Arrow Data for one column of canonical values. */
export function buildColumnData(type: SqlType, values: readonly unknown[], column: string, nullable = true): Data {
  return buildData(type, arrowTypeOf(type), values, column, nullable);
}

function buildData(type: SqlType, arrowType: DataType, values: readonly unknown[], column: string, nullable: boolean): Data {
  const n = values.length;
  let nullCount = 0;
  for (let i = 0; i < n; i++) if (values[i] === null || values[i] === undefined) nullCount++;
  if (nullCount > 0 && !nullable) {
    throw new FloeError(SqlState.notNullViolation, `null value in column "${column}" violates not-null constraint`);
  }
  let nullBitmap: Uint8Array | undefined;
  if (nullCount > 0) {
    nullBitmap = new Uint8Array((n + 7) >> 3);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== null && v !== undefined) nullBitmap[i >> 3]! |= 1 << (i & 7);
    }
  }
  const base = { type: arrowType, length: n, nullCount, nullBitmap };
  const bad = (i: number): never => mismatch(column, type, values[i]);
  switch (type.kind) {
    case 'bool': {
      const bits = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === true) bits[i >> 3]! |= 1 << (i & 7);
        else if (v !== false && v !== null && v !== undefined) bad(i);
      }
      return mk({ ...base, data: bits });
    }
    case 'int2': return ints(new Int16Array(n), -32768, 32767);
    case 'int4': return ints(new Int32Array(n), -2147483648, 2147483647);
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v !== 'number' || !Number.isInteger(v)) bad(i);
        if ((v as number) < 0 || (v as number) > 4294967295) outOfRange(column, type, v);
        out[i] = (v as number) | 0;
      }
      return mk({ ...base, data: out });
    }
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz': {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v === 'bigint') {
          if (v !== BigInt.asIntN(64, v)) outOfRange(column, type, v);
          out[i] = v;
        } else if (typeof v === 'number' && Number.isSafeInteger(v)) out[i] = BigInt(v);
        else bad(i);
      }
      return mk({ ...base, data: out });
    }
    case 'float4': case 'float8': {
      const out = type.kind === 'float4' ? new Float32Array(n) : new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v !== 'number') bad(i);
        out[i] = v as number;
      }
      return mk({ ...base, data: out });
    }
    case 'date': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v !== 'number') bad(i);
        // PostgreSQL stores ±infinity dates as INT32 max/min; so does Floe
        if (v === Infinity) out[i] = 2147483647;
        else if (v === -Infinity) out[i] = -2147483648;
        else if (Number.isInteger(v) && (v as number) > -2147483648 && (v as number) < 2147483647) out[i] = v as number;
        else outOfRange(column, type, v);
      }
      return mk({ ...base, data: out });
    }
    case 'numeric': {
      if (!isDecimalNumeric(type)) return strings(type);
      const scale = type.scale ?? 0;
      const limit = 10n ** BigInt(type.precision);
      // above 15 digits every safe integer is within the precision
      const limitNum = type.precision <= 15 ? 10 ** type.precision : Infinity;
      const words32 = new Uint32Array(4 * n);
      let words: BigUint64Array | undefined;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v === 'string') {
          const u = parseDecimalNumber(v, scale);
          if (u !== undefined && u < limitNum && u > -limitNum) {
            // two's complement over four little-endian words, without a BigInt
            words32[4 * i] = u >>> 0;
            words32[4 * i + 1] = Math.floor(u / 4294967296) >>> 0;
            if (u < 0) { words32[4 * i + 2] = 0xffffffff; words32[4 * i + 3] = 0xffffffff; }
            continue;
          }
        }
        words ??= new BigUint64Array(words32.buffer);
        let unscaled: bigint;
        if (typeof v === 'string') unscaled = parseDecimal(v, scale, column);
        else if (typeof v === 'number' && Number.isFinite(v)) unscaled = parseDecimal(String(v), scale, column);
        else if (typeof v === 'bigint') unscaled = v * 10n ** BigInt(scale);
        else return bad(i);
        if (unscaled >= limit || unscaled <= -limit) {
          throw new FloeError(SqlState.numericValueOutOfRange, 'numeric field overflow', {
            detail: `A field with precision ${type.precision}, scale ${scale} must round to an absolute value less than 10^${type.precision - scale} (column "${column}").`,
          });
        }
        words[2 * i] = BigInt.asUintN(64, unscaled);
        words[2 * i + 1] = BigInt.asUintN(64, unscaled >> 64n);
      }
      return mk({ ...base, data: words32 });
    }
    case 'text': case 'varchar': case 'bpchar': case 'name': case 'char': case 'json': case 'jsonb': case 'unknown': case 'void':
      return strings(type);
    case 'bytea': {
      const offsets = new Int32Array(n + 1);
      let total = 0;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v !== null && v !== undefined) {
          if (!(v instanceof Uint8Array)) bad(i);
          total += (v as Uint8Array).length;
        }
        offsets[i + 1] = total;
      }
      const bytes = new Uint8Array(total);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v !== null && v !== undefined) bytes.set(v as Uint8Array, offsets[i]!);
      }
      return mk({ ...base, valueOffsets: offsets, data: bytes });
    }
    case 'uuid': {
      const bytes = new Uint8Array(16 * n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (typeof v !== 'string') bad(i);
        uuidToBytes(v as string, bytes, 16 * i);
      }
      return mk({ ...base, data: bytes });
    }
    case 'interval': {
      const months = new Int32Array(n);
      const days = new Int32Array(n);
      const micros = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i] as Interval | null | undefined;
        if (v === null || v === undefined) continue;
        if (typeof v !== 'object' || typeof v.months !== 'number' || typeof v.days !== 'number' || typeof v.micros !== 'bigint') bad(i);
        months[i] = v.months;
        days[i] = v.days;
        micros[i] = v.micros;
      }
      const [fm, fd, fu] = (arrowType as Struct).children;
      return mk({
        ...base,
        children: [
          mk({ type: fm!.type, length: n, nullCount: 0, data: months }),
          mk({ type: fd!.type, length: n, nullCount: 0, data: days }),
          mk({ type: fu!.type, length: n, nullCount: 0, data: micros }),
        ],
      });
    }
    case 'array': {
      // (An array whose element type is itself an array is a nested List, not a multi-dimensional array.)
      if (type.element.kind !== 'array' && hasMultidimensional(values)) {
        const flat = values.map((v) => (v === null || v === undefined ? null : flattenArray(v as unknown[])));
        const dimsType = multidimArrowType(arrowType);
        const [dimsField] = dimsType.children;
        const dims = buildData({ kind: 'array', element: { kind: 'int4' } }, dimsField!.type, flat.map((f) => f?.dims ?? null), column, true);
        const items = buildData(type, arrowType, flat.map((f) => f?.items ?? null), column, true);
        return mk({ ...base, type: dimsType, children: [dims, items] });
      }
      const offsets = new Int32Array(n + 1);
      const flat: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v !== null && v !== undefined) {
          if (!Array.isArray(v)) bad(i);
          for (const e of v as unknown[]) flat.push(e);
        }
        offsets[i + 1] = flat.length;
      }
      const childField = (arrowType as unknown as { children: Field[] }).children[0]!;
      const child = buildData(type.element, childField.type as DataType, flat, column, true);
      return mk({ ...base, valueOffsets: offsets, child });
    }
  }

  function ints(out: Int16Array | Int32Array, min: number, max: number): Data {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      if (typeof v === 'number' && Number.isInteger(v)) {
        if (v < min || v > max) outOfRange(column, type, v);
        out[i] = v;
      } else if (typeof v === 'bigint' && v >= BigInt(min) && v <= BigInt(max)) {
        out[i] = Number(v);
      } else if (typeof v === 'bigint') {
        outOfRange(column, type, v);
      } else bad(i);
    }
    return mk({ ...base, data: out });
  }

  function strings(t: SqlType): Data {
    const offsets = new Int32Array(n + 1);
    let bytes = new Uint8Array(Math.max(64, n * 16));
    let pos = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== null && v !== undefined) {
        if (typeof v !== 'string') mismatch(column, t, v);
        const s = v as string;
        // a UTF-8 encoding takes at most 3 bytes per UTF-16 unit
        if (pos + s.length * 3 > bytes.length) {
          const grown = new Uint8Array(Math.max(bytes.length * 2, pos + s.length * 3));
          grown.set(bytes.subarray(0, pos));
          bytes = grown;
        }
        pos += encodeInto(s, bytes, pos);
      }
      offsets[i + 1] = pos;
    }
    return mk({ ...base, valueOffsets: offsets, data: bytes.subarray(0, pos) });
  }
}

function describe(v: unknown): string {
  if (v instanceof Uint8Array) return 'bytea';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function mismatch(column: string, type: SqlType, v: unknown): never {
  throw new FloeError(SqlState.datatypeMismatch, `column "${column}" is of type ${formatType(type)} but the value is a JavaScript ${describe(v)}`, {
    hint: 'Values must follow the canonical convention of src/common/sql-type.ts.',
  });
}

function outOfRange(column: string, type: SqlType, v: unknown): never {
  throw new FloeError(SqlState.numericValueOutOfRange, `value ${String(v)} is out of range for type ${formatType(type)} (column "${column}")`);
}
