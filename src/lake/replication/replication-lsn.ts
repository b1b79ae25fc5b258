/**
 * Synthetic LSNs (docs/design-notes.md, "Floe as a publisher"). Snapshot ids come from one
 * counter of the catalog, handed out inside the catalog transaction that commits them, so
 * their order is the warehouse's commit order across all tables. A commit's LSN is its
 * snapshot id in the high 32 bits ("S/0"); the end of the commit is one past it ("S/1").
 * A consumer that confirms S/1 has everything through snapshot S; streaming from an LSN
 * sends the commits whose LSN is at or past it, as PostgreSQL does with a commit record.
 */
const SHIFT = 32n;

export function commitLsn(snapshotId: bigint): bigint {
  return snapshotId << SHIFT;
}

export function commitEndLsn(snapshotId: bigint): bigint {
  return (snapshotId << SHIFT) + 1n;
}

/** The first snapshot id whose commit is streamed from `lsn` on. */
export function firstSnapshotFrom(lsn: bigint): bigint {
  return (lsn + (1n << SHIFT) - 1n) >> SHIFT;
}

/** PostgreSQL's pg_lsn text: two hex halves, upper case, no leading zeros. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** Parses `X/X`; undefined when the text is not an LSN. */
export function parseLsn(text: string): bigint | undefined {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (m === null) return undefined;
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}
