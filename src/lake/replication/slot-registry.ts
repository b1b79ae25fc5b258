import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ReplicationSlotRecord } from './replication-slot.js';

/** PostgreSQL's SQLSTATE for a slot another connection streams from. */
const OBJECT_IN_USE = '55006';

/**
 * This process's live state of replication slots: which connection streams from each
 * (PostgreSQL lets one at a time), and the temporary slots, which live only as long as the
 * connection that made them and are never written to the catalog.
 */
export class SlotRegistry {
  readonly #active = new Map<string, number>();
  readonly #temporary = new Map<string, { readonly slot: ReplicationSlotRecord; readonly ownerPid: number; confirmed: bigint }>();

  /** Marks the slot as streamed by `pid`; 55006 when another connection has it. */
  acquire(name: string, pid: number): void {
    const holder = this.#active.get(name);
    if (holder !== undefined && holder !== pid) {
      throw new FloeError(OBJECT_IN_USE, `replication slot "${name}" is active for PID ${holder}`);
    }
    this.#active.set(name, pid);
  }

  release(name: string, pid: number): void {
    if (this.#active.get(name) === pid) this.#active.delete(name);
  }

  activePid(name: string): number | undefined {
    return this.#active.get(name);
  }

  addTemporary(slot: ReplicationSlotRecord, ownerPid: number): void {
    if (this.#temporary.has(slot.name)) throw new FloeError(SqlState.duplicateObject, `replication slot "${slot.name}" already exists`);
    this.#temporary.set(slot.name, { slot, ownerPid, confirmed: slot.confirmedFlushLsn });
  }

  temporary(name: string): ReplicationSlotRecord | undefined {
    const t = this.#temporary.get(name);
    return t === undefined ? undefined : { ...t.slot, confirmedFlushLsn: t.confirmed, restartLsn: t.confirmed };
  }

  confirmTemporary(name: string, lsn: bigint): void {
    const t = this.#temporary.get(name);
    if (t !== undefined && lsn > t.confirmed) t.confirmed = lsn;
  }

  /** The temporary slots, as pg_replication_slots lists them. */
  listTemporary(): ReplicationSlotRecord[] {
    return [...this.#temporary.keys()].map((name) => this.temporary(name)!);
  }

  dropTemporary(name: string): boolean {
    return this.#temporary.delete(name);
  }

  /** The connection ended: its temporary slots go, and it streams nothing any more. */
  releaseAll(pid: number): void {
    for (const [name, holder] of this.#active) if (holder === pid) this.#active.delete(name);
    for (const [name, t] of this.#temporary) if (t.ownerPid === pid) this.#temporary.delete(name);
  }
}

/** The slots of this process: its walsenders and pg_replication_slots share it (one floe serve process streams a warehouse's slots). */
export const processSlotRegistry = new SlotRegistry();
