import {
  Binary, Bool, DataType, DateDay, Decimal, Field, FixedSizeBinary, Float32, Float64, Int16, Int32, Int64,
  List, Struct, TimeMicrosecond, TimestampMicrosecond, Utf8,
} from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';

/**
 * SqlType ↔ Arrow type, used both in memory and as the Parquet storage type.
 *
 *   bool→Bool  int2→Int16  int4→Int32  int8→Int64  float4→Float32  float8→Float64
 *   numeric(p,s), p ≤ 38 → Decimal128(p,s); unconstrained or p > 38 → Utf8 (text form)
 *   text/varchar/bpchar/name/char/json/jsonb → Utf8;  bytea → Binary
 *   date → Date32 (days);  time → Time64(µs);  timetz → Int64 (packed time and zone);  timestamp → Timestamp(µs);  timestamptz → Timestamp(µs, "UTC")
 *   interval → Struct{months: Int32, days: Int32, micros: Int64};  uuid → FixedSizeBinary(16)
 *   oid/regclass/regtype/regproc → Int32 (the bits of the unsigned oid), unknown → Utf8
 *   array of T → List(T)  (element field named "element", nullable); a batch or file holding a
 *     multi-dimensional value stores the column as Struct{dims, items} (multidim-array.ts)
 *
 * Every field carries metadata `floe.type` (the SqlType as JSON) and `floe.field_id`,
 * so the exact SqlType (varchar length, bpchar, jsonb…) survives Arrow IPC and Parquet.
 *
 * Parquet round trip (parquet-wasm 0.8, checked for every SqlType by
 * test/lake/kernels/arrow-round-trip.test.ts, read back both through `intoIPCStream`
 * and through `intoFFI` + arrow-js-ffi): Decimal128, Timestamp µs with and without
 * zone, Time64 µs, FixedSizeBinary(16), Struct and List all come back with the same
 * Arrow type and values, so no type needs a different storage representation. Field
 * metadata also survives (the Arrow schema is kept in the Parquet footer), but readers
 * should still prefer the catalog's SqlType and match columns by `floe.field_id`.
 */
export const FLOE_TYPE_KEY = 'floe.type';
export const FLOE_FIELD_ID_KEY = 'floe.field_id';

export const MAX_DECIMAL128_PRECISION = 38;

/** True when a numeric is stored as Decimal128; otherwise it is stored as its text form. */
export function isDecimalNumeric(type: SqlType): type is { kind: 'numeric'; precision: number; scale?: number } {
  return type.kind === 'numeric' && type.precision !== undefined && type.precision <= MAX_DECIMAL128_PRECISION;
}

export function arrowTypeOf(type: SqlType): DataType {
  switch (type.kind) {
    case 'bool': return new Bool();
    case 'int2': return new Int16();
    case 'int4': return new Int32();
    case 'int8': return new Int64();
    case 'float4': return new Float32();
    case 'float8': return new Float64();
    case 'numeric':
      return isDecimalNumeric(type) ? new Decimal(type.scale ?? 0, type.precision, 128) : new Utf8();
    case 'text': case 'varchar': case 'bpchar': case 'name': case 'char': case 'json': case 'jsonb': case 'unknown': case 'void':
      return new Utf8();
    case 'bytea': return new Binary();
    case 'date': return new DateDay();
    case 'time': return new TimeMicrosecond();
    // Packed time and zone (src/common/timetz.ts): int64 order is timetz order, so min/max statistics prune.
    case 'timetz': return new Int64();
    case 'timestamp': return new TimestampMicrosecond();
    case 'timestamptz': return new TimestampMicrosecond('UTC');
    case 'interval':
      return new Struct([
        new Field('months', new Int32(), false),
        new Field('days', new Int32(), false),
        new Field('micros', new Int64(), false),
      ]);
    case 'uuid': return new FixedSizeBinary(16);
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': return new Int32();
    case 'array': return new List(new Field('element', arrowTypeOf(type.element), true));
  }
}

export interface ArrowColumn {
  readonly name: string;
  readonly type: SqlType;
  readonly fieldId: number;
  readonly nullable: boolean;
}

export function arrowFieldOf(column: ArrowColumn): Field {
  const metadata = new Map<string, string>([
    [FLOE_TYPE_KEY, JSON.stringify(column.type)],
    [FLOE_FIELD_ID_KEY, String(column.fieldId)],
  ]);
  return new Field(column.name, arrowTypeOf(column.type), column.nullable, metadata);
}

/** The SqlType a field was written with (from its `floe.type` metadata), or the closest one for a foreign field. */
export function sqlTypeOfField(field: Field): SqlType {
  const json = field.metadata.get(FLOE_TYPE_KEY);
  if (json !== undefined) return JSON.parse(json) as SqlType;
  return sqlTypeOfArrowType(field.type as DataType, field.name);
}

export function fieldIdOf(field: Field): number | undefined {
  const id = field.metadata.get(FLOE_FIELD_ID_KEY);
  return id === undefined ? undefined : Number(id);
}

function sqlTypeOfArrowType(t: DataType, name: string): SqlType {
  if (DataType.isBool(t)) return { kind: 'bool' };
  if (DataType.isInt(t)) {
    const it = t as unknown as { bitWidth: number };
    return it.bitWidth <= 16 ? { kind: 'int2' } : it.bitWidth === 32 ? { kind: 'int4' } : { kind: 'int8' };
  }
  if (DataType.isFloat(t)) return (t as unknown as { precision: number }).precision === 2 ? { kind: 'float8' } : { kind: 'float4' };
  if (DataType.isDecimal(t)) return { kind: 'numeric', precision: (t as Decimal).precision, scale: (t as Decimal).scale };
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t)) return { kind: 'text' };
  if (DataType.isBinary(t) || DataType.isLargeBinary(t)) return { kind: 'bytea' };
  if (DataType.isDate(t)) return { kind: 'date' };
  if (DataType.isTime(t)) return { kind: 'time' };
  if (DataType.isTimestamp(t)) return (t as unknown as { timezone: string | null }).timezone ? { kind: 'timestamptz' } : { kind: 'timestamp' };
  if (DataType.isFixedSizeBinary(t) && (t as FixedSizeBinary).byteWidth === 16) return { kind: 'uuid' };
  if (DataType.isList(t)) {
    const child = (t as List).children[0]!;
    return { kind: 'array', element: sqlTypeOfField(child) };
  }
  if (DataType.isDictionary(t)) return sqlTypeOfArrowType((t as unknown as { dictionary: DataType }).dictionary, name);
  throw new FloeError(SqlState.featureNotSupported, `column "${name}" has Arrow type ${String(t)}, which Floe cannot map to a SQL type`);
}
