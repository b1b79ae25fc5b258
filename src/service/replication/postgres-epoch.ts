/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC), in which replication timestamps count. */
const POSTGRES_EPOCH_MICROS = 946_684_800_000_000n;

export function toPostgresMicros(unixMicros: bigint): bigint {
  return unixMicros - POSTGRES_EPOCH_MICROS;
}

export function nowPostgresMicros(): bigint {
  return toPostgresMicros(BigInt(Date.now()) * 1000n);
}
