import { FloeError } from '../../common/floe-error.js';
import { formatType, type Interval, type SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import {
  MICROS_PER_DAY, TS_NEG_INF, TS_POS_INF, addIntervalToLocal, addIntervalToTz, intervalToMicrosApprox, negateInterval,
} from '../types/datetime.js';
import { decAdd, decCmp, decNeg, parseDecimal, toDecimal } from '../types/numeric.js';
import { castValue } from '../types/cast-value.js';
import type { TextIoSettings } from '../types/text-io.js';

/**
 * RANGE … offset PRECEDING/FOLLOWING: a row is in the frame when its ORDER BY
 * value lies within `offset` of the current row's, measured in the key's own
 * type as PostgreSQL's in_range support functions do: exactly for integers
 * and numeric, with calendar arithmetic for date and timestamp keys and an
 * interval offset.
 */
export interface RangeFrameOffset {
  /** The key value `offset` away from `cur`: above it for sign 1, below for -1. */
  shift(cur: unknown, sign: 1 | -1): unknown;
  /** Orders a key value against a shifted one. */
  compare(key: unknown, shifted: unknown): number;
}

const INTEGERS = new Set(['int2', 'int4', 'int8']);
const NUMBERS = new Set(['int2', 'int4', 'int8', 'numeric', 'float4', 'float8']);

function cmp<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unsupported(keyType: SqlType, offsetType: SqlType): FloeError {
  return new FloeError(SqlState.undefinedFunction,
    `RANGE with offset PRECEDING/FOLLOWING is not supported for column type ${formatType(keyType)} and offset type ${formatType(offsetType)}`,
    { hint: 'Cast the offset value to an appropriate type.' });
}

function negativeSize(): FloeError {
  return new FloeError('22013', 'invalid preceding or following size in window function');
}

/** A timestamp past the representable range acts as an infinity (in_range's overflow rule). */
function saturating(add: () => bigint, sign: 1 | -1): bigint {
  try {
    return add();
  } catch (e) {
    if (e instanceof FloeError && e.sqlstate === SqlState.datetimeFieldOverflow) return sign > 0 ? TS_POS_INF : TS_NEG_INF;
    throw e;
  }
}

/** The comparison form of a non-NULL offset of `offsetType` against keys of `keyType`. */
export function rangeFrameOffset(keyType: SqlType, offsetType: SqlType, offset: unknown, settings: TextIoSettings): RangeFrameOffset {
  const k = keyType.kind;
  let o = offsetType.kind;
  let off = offset;
  // An untyped literal offset takes the type in_range wants for this key.
  if (o === 'text' || o === 'unknown') {
    const want: SqlType = k === 'date' || k === 'timestamp' || k === 'timestamptz' || k === 'time' || k === 'interval' ? { kind: 'interval' } : keyType;
    off = castValue(offset, offsetType, want, settings);
    o = want.kind;
  }
  if (NUMBERS.has(k) && NUMBERS.has(o)) {
    if (INTEGERS.has(k) && !INTEGERS.has(o)) throw unsupported(keyType, offsetType);
    if (k === 'numeric' || (k !== 'float4' && k !== 'float8' && o === 'numeric')) {
      const d = toDecimal(off);
      if (d.nan || decCmp(d, { unscaled: 0n, scale: 0 }) < 0) throw negativeSize();
      return {
        shift: (cur, sign) => decAdd(parseDecimal(String(cur)), sign > 0 ? d : decNeg(d)),
        compare: (key, shifted) => decCmp(parseDecimal(String(key)), shifted as ReturnType<typeof parseDecimal>),
      };
    }
    if (k === 'int8') {
      const d = BigInt(off as number | bigint);
      if (d < 0n) throw negativeSize();
      return { shift: (cur, sign) => (cur as bigint) + BigInt(sign) * d, compare: (key, shifted) => cmp(key as bigint, shifted as bigint) };
    }
    const d = typeof off === 'string' ? Number(off) : Number(off as number | bigint);
    if (Number.isNaN(d) || d < 0) throw negativeSize();
    return { shift: (cur, sign) => Number(cur as number | bigint) + sign * d, compare: (key, shifted) => cmp(Number(key as number | bigint), shifted as number) };
  }
  if (o !== 'interval') throw unsupported(keyType, offsetType);
  const iv = off as Interval;
  if (intervalToMicrosApprox(iv) < 0n) throw negativeSize();
  const signed = (sign: 1 | -1): Interval => (sign > 0 ? iv : negateInterval(iv));
  switch (k) {
    case 'date': case 'timestamp': {
      const micros = (v: unknown): bigint => (k === 'date' ? dateMicros(v as number) : (v as bigint));
      return {
        shift: (cur, sign) => saturating(() => addIntervalToLocal(micros(cur), signed(sign)), sign),
        compare: (key, shifted) => cmp(micros(key), shifted as bigint),
      };
    }
    case 'timestamptz':
      return {
        shift: (cur, sign) => saturating(() => addIntervalToTz(cur as bigint, signed(sign), settings.timeZone), sign),
        compare: (key, shifted) => cmp(key as bigint, shifted as bigint),
      };
    case 'time':
      // in_range over time does not wrap around midnight.
      return { shift: (cur, sign) => (cur as bigint) + BigInt(sign) * iv.micros, compare: (key, shifted) => cmp(key as bigint, shifted as bigint) };
    case 'interval':
      return {
        shift: (cur, sign) => intervalToMicrosApprox(cur as Interval) + BigInt(sign) * intervalToMicrosApprox(iv),
        compare: (key, shifted) => cmp(intervalToMicrosApprox(key as Interval), shifted as bigint),
      };
    default:
      throw unsupported(keyType, offsetType);
  }
}

function dateMicros(days: number): bigint {
  if (days === Infinity || days >= 2147483647) return TS_POS_INF;
  if (days === -Infinity || days <= -2147483648) return TS_NEG_INF;
  return BigInt(days) * MICROS_PER_DAY;
}
