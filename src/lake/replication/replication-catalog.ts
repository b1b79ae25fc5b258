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
}
