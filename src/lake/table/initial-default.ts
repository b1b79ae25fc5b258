import type { Interval, SqlType } from '../../common/sql-type.js';

/**
 * A column's initial default (Iceberg v3's `initial-default`): the value rows written
 * before the column existed read as. It is the ADD COLUMN's DEFAULT evaluated once,
 * kept in the catalog's JSON, so values JSON cannot hold are spelled as text:
 * bigint as its decimal digits, bytea as hex, non-finite numbers as 'Infinity' / '-Infinity' / 'NaN'.
 */
export type InitialDefault = null | boolean | number | string | readonly InitialDefault[] | { readonly [k: string]: InitialDefault };

/** The JSON form of a canonical value (src/common/sql-type.ts). */
export function encodeInitialDefault(value: unknown, type: SqlType): InitialDefault {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return String(value);
    case 'float4': case 'float8': case 'date':
      return Number.isFinite(value as number) ? (value as number) : String(value);
    case 'bytea':
      return Buffer.from(value as Uint8Array).toString('hex');
    case 'interval': {
      const v = value as Interval;
      return { months: v.months, days: v.days, micros: String(v.micros) };
    }
    case 'array':
      return (value as readonly unknown[]).map((e) => encodeInitialDefault(e, type.element));
    default:
      return value as InitialDefault;
  }
}

/** The canonical value of an initial default's JSON form. */
export function decodeInitialDefault(json: InitialDefault | undefined, type: SqlType): unknown {
  if (json === null || json === undefined) return null;
  switch (type.kind) {
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return BigInt(json as string | number);
    case 'float4': case 'float8': case 'date':
      return typeof json === 'string' ? Number(json) : json;
    case 'bytea':
      return new Uint8Array(Buffer.from(json as string, 'hex'));
    case 'interval': {
      const v = json as { months: number; days: number; micros: string };
      return { months: v.months, days: v.days, micros: BigInt(v.micros) } satisfies Interval;
    }
    case 'array':
      return (json as readonly InitialDefault[]).map((e) => decodeInitialDefault(e, type.element));
    default:
      return json;
  }
}
