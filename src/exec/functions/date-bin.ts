import { FloeError } from '../../common/floe-error.js';
import type { Interval } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { MICROS_PER_DAY, TS_NEG_INF, TS_POS_INF, inTimestampRange } from '../types/datetime.js';

/**
 * date_bin(stride, source, origin): the start of the stride-wide bin, counted
 * from origin, that holds source. The same arithmetic serves timestamp and
 * timestamptz (absolute microseconds, no time zone involved).
 */
export function dateBin(stride: Interval, source: bigint, origin: bigint): bigint {
  if (stride.months !== 0) {
    throw new FloeError(SqlState.featureNotSupported, 'timestamps cannot be binned into intervals containing months or years');
  }
  const width = BigInt(stride.days) * MICROS_PER_DAY + stride.micros;
  if (width <= 0n) throw new FloeError(SqlState.datetimeFieldOverflow, 'stride must be greater than zero');
  if (source === TS_POS_INF || source === TS_NEG_INF) return source;
  if (origin === TS_POS_INF || origin === TS_NEG_INF) throw new FloeError(SqlState.datetimeFieldOverflow, 'origin out of range');
  const diff = source - origin;
  let delta = diff - (diff % width);
  // The bin starts at or before source even when origin lies after it.
  if (origin > source && width > 1n) delta -= width;
  return inTimestampRange(origin + delta);
}
