import { FloeError } from '../../common/floe-error.js';
import { PROCESS_OWNER, isDeadLocalOwner } from '../../common/process-owner.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ReplicationCatalog, ReplicationSlotHolder } from './replication-catalog.js';
import type { ReplicationSlotRecord } from './replication-slot.js';

/** PostgreSQL's SQLSTATE for a slot another connection streams from. */
const OBJECT_IN_USE = '55006';
/** A durable slot's holder renews its mark in the catalog this often… */
const SLOT_HEARTBEAT_MS = 1000;
/** …and a mark not renewed for this long is another process's to take (its holder died). */
export const SLOT_LEASE_MICROS = 15_000_000n;

const nowMicros = () => BigInt(Date.now()) * 1000n;

/**
 * The pid of the connection another process streams the slot on, if one does: its mark
 * among `holders` (the catalog's, read once by the caller) is younger than the lease and its
 * process is not known dead.
 */
export function otherStreamer(holders: readonly ReplicationSlotHolder[], name: string): number | undefined {
  const h = holders.find((x) => x.slotName === name);
  if (h === undefined || h.owner === PROCESS_OWNER || nowMicros() - h.heartbeatMicros > SLOT_LEASE_MICROS || isDeadLocalOwner(h.owner)) return undefined;
  return h.pid;
}

/**
 * This process's live state of replication slots: which connection streams from each
 * (PostgreSQL lets one at a time), and the temporary slots, which live only as long as the
 * connection that made them and are never written to the catalog.
 */
export class SlotRegistry {
  readonly #active = new Map<string, number>();
  /** Durable slots this process streams, marked in the catalog so other gateways refuse them. */
  readonly #durable = new Map<string, { readonly pid: number; readonly catalog: ReplicationCatalog; readonly onLost: (holder: number) => void }>();
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #temporary = new Map<string, { readonly slot: ReplicationSlotRecord; readonly ownerPid: number; confirmed: bigint }>();

  /** Marks the slot as streamed by `pid`; 55006 when another connection has it. */
  acquire(name: string, pid: number): void {
    const holder = this.#active.get(name);
    if (holder !== undefined && holder !== pid) {
      throw new FloeError(OBJECT_IN_USE, `replication slot "${name}" is active for PID ${holder}`);
    }
    this.#active.set(name, pid);
  }

  /**
   * acquire, across the processes of a warehouse: the slot is also marked in the catalog as
   * streamed by this connection, renewed every second; 55006 when another process's
   * connection holds it. `onLost` is called if a renewal finds it taken (this process hung
   * past the lease): the stream must end.
   */
  acquireDurable(name: string, pid: number, catalog: ReplicationCatalog, onLost: (holder: number) => void): void {
    this.acquire(name, pid);
    try {
      // A mark left by this process, or by a process of this host that is gone, is not waited out.
      const h = catalog.listSlotHolders().find((x) => x.slotName === name);
      const stale = h !== undefined && (h.owner === PROCESS_OWNER || isDeadLocalOwner(h.owner));
      const holder = catalog.holdSlot(name, PROCESS_OWNER, pid, nowMicros(), stale ? -1n : SLOT_LEASE_MICROS);
      if (holder !== undefined) throw new FloeError(OBJECT_IN_USE, `replication slot "${name}" is active for PID ${holder}`);
    } catch (e) {
      this.release(name, pid);
      throw e;
    }
    this.#durable.set(name, { pid, catalog, onLost });
    this.#heartbeat ??= setInterval(() => this.#renew(), SLOT_HEARTBEAT_MS).unref();
  }

  #renew(): void {
    for (const [name, d] of this.#durable) {
      let holder: number | undefined;
      try {
        holder = d.catalog.holdSlot(name, PROCESS_OWNER, d.pid, nowMicros(), SLOT_LEASE_MICROS);
      } catch {
        continue; // the catalog is unreachable: the mark lapses by itself if this lasts
      }
      if (holder !== undefined) {
        this.#durable.delete(name);
        d.onLost(holder);
      }
    }
  }

  release(name: string, pid: number): void {
    if (this.#active.get(name) === pid) this.#active.delete(name);
    const d = this.#durable.get(name);
    if (d !== undefined && d.pid === pid) {
      this.#durable.delete(name);
      try { d.catalog.releaseSlot(name, PROCESS_OWNER, pid); } catch { /* it lapses after the lease */ }
    }
    if (this.#durable.size === 0 && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
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
    for (const [name, holder] of this.#active) if (holder === pid) this.release(name, pid);
    for (const [name, t] of this.#temporary) if (t.ownerPid === pid) this.#temporary.delete(name);
  }
}

/** The slots of this process: its walsenders and pg_replication_slots share it (one floe serve process streams a warehouse's slots). */
export const processSlotRegistry = new SlotRegistry();
