/** PostgreSQL's text form of a WAL position, `X/Y` in hex (pg_lsn's output). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** `X/Y` back to a position; undefined for anything else. */
export function parseLsn(text: string): bigint | undefined {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  return m === null ? undefined : (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** Microseconds between the Unix epoch and PostgreSQL's (2000-01-01), in which replication messages carry times. */
export const PG_EPOCH_OFFSET_MICROS = 946_684_800_000_000n;
