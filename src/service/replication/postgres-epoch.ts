import { PG_EPOCH_OFFSET_MICROS } from '../../common/pg-lsn.js';

/** Unix microseconds as PostgreSQL's, counted from 2000-01-01 UTC, as replication timestamps are. */
export function toPostgresMicros(unixMicros: bigint): bigint {
  return unixMicros - PG_EPOCH_OFFSET_MICROS;
}

export function nowPostgresMicros(): bigint {
  return toPostgresMicros(BigInt(Date.now()) * 1000n);
}
