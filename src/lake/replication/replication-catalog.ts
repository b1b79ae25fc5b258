import type { NewPublication, PublicationMetadata, PublishedActions } from './publication-metadata.js';
import type { ReplicationSlotRecord } from './replication-slot.js';

/** Publications and durable replication slots as the catalog keeps them (catalog/sql-replication.ts). */
export interface ReplicationCatalog {
  listPublications(): PublicationMetadata[];
  /** 42710 when the name is taken. */
  createPublication(p: NewPublication): PublicationMetadata;
  setPublicationTables(oid: number, tableIds: readonly number[]): void;
  setPublicationActions(oid: number, publish: PublishedActions): void;
  /** False when there was no such publication. */
  dropPublication(name: string): boolean;
  /** The newest snapshot id handed out; every snapshot up to it is committed and visible. */
  lastSnapshotId(): bigint;
  listSlots(): ReplicationSlotRecord[];
  /** 42710 when the name is taken. */
  createSlot(slot: ReplicationSlotRecord): void;
  /** Moves confirmed_flush (and restart) forward to `lsn`; never back. */
  confirmSlot(name: string, lsn: bigint): void;
  /** False when there was no such slot. */
  dropSlot(name: string): boolean;
  /**
   * Marks the slot as streamed by connection `pid` of process `owner` (PROCESS_OWNER), or
   * renews that mark; returns the pid of another holder whose heartbeat is younger than
   * `leaseMicros` instead (55006 for the caller). One write transaction across processes.
   */
  holdSlot(name: string, owner: string, pid: number, nowMicros: bigint, leaseMicros: bigint): number | undefined;
  /** Clears the mark if that connection of that process holds it. */
  releaseSlot(name: string, owner: string, pid: number): void;
  /** Every slot's holder, live or lapsed (the caller judges the heartbeat). */
  listSlotHolders(): ReplicationSlotHolder[];
}

/** Who streams a durable slot: a connection (its pid, as active_pid shows it) of a process. */
export interface ReplicationSlotHolder {
  readonly slotName: string;
  readonly owner: string;
  readonly pid: number;
  readonly heartbeatMicros: bigint;
}
