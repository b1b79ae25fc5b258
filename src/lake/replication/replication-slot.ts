/**
 * A durable logical replication slot: where its consumer stands in the warehouse's change
 * stream. Positions are synthetic LSNs (replication-lsn.ts). `confirmedFlushLsn` moves with the
 * consumer's standby status updates; the slot's snapshot hold-back starts there.
 */
export interface ReplicationSlotRecord {
  readonly name: string;
  readonly plugin: string;
  readonly database: string;
  /** Where the slot was made consistent: changes committed after it are streamed. */
  readonly restartLsn: bigint;
  readonly confirmedFlushLsn: bigint;
  readonly createdMicros: bigint;
}

/** PostgreSQL's rule for slot names: lower-case letters, digits and underscores, at most 63 bytes. */
export function slotNameProblem(name: string): { message: string; hint?: string } | undefined {
  if (name.length === 0) return { message: `replication slot name "${name}" is too short` };
  if (name.length >= 64) return { message: `replication slot name "${name}" is too long` };
  if (!/^[a-z0-9_]+$/.test(name)) {
    return {
      message: `replication slot name "${name}" contains invalid character`,
      hint: 'Replication slot names may only contain lower case letters, numbers, and the underscore character.',
    };
  }
  return undefined;
}
