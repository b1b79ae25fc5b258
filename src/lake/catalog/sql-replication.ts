import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { NewPublication, PublicationMetadata } from '../replication/publication-metadata.js';
import type { ReplicationSlotHolder } from '../replication/replication-catalog.js';
import type { ReplicationSlotRecord } from '../replication/replication-slot.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Publications (CREATE PUBLICATION) and durable logical replication slots in the
 * catalog. A publication's oid comes from the relation-id counter; its FOR TABLE members
 * are rows of publication_tables. A slot row holds its consumer's confirmed position, which
 * snapshot expiry reads to keep what the slot still has to stream.
 */
interface PublicationRow {
  pub_oid: bigint; name: string; all_tables: bigint; pub_insert: bigint; pub_update: bigint; pub_delete: bigint; pub_truncate: bigint;
}

interface SlotRow { name: string; plugin: string; database: string; restart_lsn: bigint; confirmed_flush_lsn: bigint; created_micros: bigint }

const toSlot = (r: SlotRow): ReplicationSlotRecord => ({
  name: r.name, plugin: r.plugin, database: r.database, restartLsn: BigInt(r.restart_lsn),
  confirmedFlushLsn: BigInt(r.confirmed_flush_lsn), createdMicros: BigInt(r.created_micros),
});

export class SqlReplication {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  listPublications(): PublicationMetadata[] {
    return this.#c.cached('publications', () => {
      const rows = this.#c.sql('SELECT * FROM publications ORDER BY pub_oid').all() as PublicationRow[];
      const members = this.#c.sql('SELECT pub_oid, table_id FROM publication_tables ORDER BY pub_oid, table_id').all() as { pub_oid: bigint; table_id: bigint }[];
      return rows.map((r) => ({
        oid: Number(r.pub_oid), name: r.name, allTables: Number(r.all_tables) !== 0,
        publish: {
          insert: Number(r.pub_insert) !== 0, update: Number(r.pub_update) !== 0,
          delete: Number(r.pub_delete) !== 0, truncate: Number(r.pub_truncate) !== 0,
        },
        tableIds: members.filter((m) => m.pub_oid === r.pub_oid).map((m) => Number(m.table_id)),
      }));
    });
  }

  createPublication(p: NewPublication): PublicationMetadata {
    return this.#c.immediate(() => {
      if (this.#c.sql('SELECT 1 FROM publications WHERE name = ?').get(p.name) !== undefined) {
        throw new FloeError(SqlState.duplicateObject, `publication "${p.name}" already exists`);
      }
      const oid = this.#c.nextId();
      this.#c.sql('INSERT INTO publications VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        oid, p.name, p.allTables ? 1 : 0, p.publish.insert ? 1 : 0, p.publish.update ? 1 : 0, p.publish.delete ? 1 : 0, p.publish.truncate ? 1 : 0,
      );
      const add = this.#c.sql('INSERT INTO publication_tables VALUES (?, ?) ON CONFLICT DO NOTHING');
      for (const t of p.tableIds) add.run(oid, t);
      return { oid, ...p, tableIds: [...new Set(p.tableIds)].sort((a, b) => a - b) };
    });
  }

  /** ALTER PUBLICATION … ADD / DROP / SET TABLE: the caller has checked membership; this replaces the member list. */
  setPublicationTables(oid: number, tableIds: readonly number[]): void {
    this.#c.immediate(() => {
      this.#c.sql('DELETE FROM publication_tables WHERE pub_oid = ?').run(oid);
      const add = this.#c.sql('INSERT INTO publication_tables VALUES (?, ?) ON CONFLICT DO NOTHING');
      for (const t of tableIds) add.run(oid, t);
    });
  }

  /** ALTER PUBLICATION … SET (publish = …). */
  setPublicationActions(oid: number, publish: PublicationMetadata['publish']): void {
    this.#c.immediate(() => {
      this.#c.sql('UPDATE publications SET pub_insert = ?, pub_update = ?, pub_delete = ?, pub_truncate = ? WHERE pub_oid = ?')
        .run(publish.insert ? 1 : 0, publish.update ? 1 : 0, publish.delete ? 1 : 0, publish.truncate ? 1 : 0, oid);
    });
  }

  /** False when there was no such publication. */
  dropPublication(name: string): boolean {
    return this.#c.immediate(() => {
      const r = this.#c.sql('SELECT pub_oid FROM publications WHERE name = ?').get(name) as { pub_oid: bigint } | undefined;
      if (r === undefined) return false;
      this.#c.sql('DELETE FROM publication_tables WHERE pub_oid = ?').run(r.pub_oid);
      this.#c.sql('DELETE FROM publications WHERE pub_oid = ?').run(r.pub_oid);
      return true;
    });
  }

  /** The newest snapshot id handed out, read fresh: every snapshot up to it is committed (ids are given inside the committing transaction). */
  lastSnapshotId(): bigint {
    const r = this.#c.sql("SELECT value - 1 AS v FROM meta WHERE key = 'next_snapshot_id'").get() as { v: bigint };
    return BigInt(r.v);
  }

  listSlots(): ReplicationSlotRecord[] {
    return this.#c.cached('replication slots', () => (this.#c.sql('SELECT * FROM replication_slots ORDER BY name').all() as SlotRow[]).map(toSlot));
  }

  /** 42710 when the name is taken. */
  createSlot(slot: ReplicationSlotRecord): void {
    this.#c.immediate(() => {
      if (this.#c.sql('SELECT 1 FROM replication_slots WHERE name = ?').get(slot.name) !== undefined) {
        throw new FloeError(SqlState.duplicateObject, `replication slot "${slot.name}" already exists`);
      }
      this.#c.sql('INSERT INTO replication_slots VALUES (?, ?, ?, ?, ?, ?)')
        .run(slot.name, slot.plugin, slot.database, slot.restartLsn, slot.confirmedFlushLsn, slot.createdMicros);
    });
  }

  /** Moves the slot forward only: a consumer that confirms an older position changes nothing (and costs no write). */
  confirmSlot(name: string, lsn: bigint): void {
    const current = this.listSlots().find((s) => s.name === name);
    if (current === undefined || lsn <= current.confirmedFlushLsn) return;
    this.#c.immediate(() => {
      this.#c.sql(`UPDATE replication_slots SET confirmed_flush_lsn = CASE WHEN confirmed_flush_lsn > ? THEN confirmed_flush_lsn ELSE ? END,
        restart_lsn = CASE WHEN restart_lsn > ? THEN restart_lsn ELSE ? END WHERE name = ?`)
        .run(lsn, lsn, lsn, lsn, name);
    });
  }

  /** False when there was no such slot. */
  dropSlot(name: string): boolean {
    return this.#c.immediate(() => {
      this.#c.sql('DELETE FROM replication_slot_holders WHERE slot_name = ?').run(name);
      return this.#c.sql('DELETE FROM replication_slots WHERE name = ?').run(name).changes > 0;
    });
  }

  holdSlot(name: string, owner: string, pid: number, nowMicros: bigint, leaseMicros: bigint): number | undefined {
    return this.#c.immediateNormal(() => {
      const r = this.#c.sql('SELECT owner, pid, heartbeat_micros FROM replication_slot_holders WHERE slot_name = ?').get(name) as
        { owner: string; pid: bigint; heartbeat_micros: bigint } | undefined;
      const same = r !== undefined && r.owner === owner && Number(r.pid) === pid;
      if (r !== undefined && !same && nowMicros - BigInt(r.heartbeat_micros) <= leaseMicros) return Number(r.pid);
      this.#c.sql(`INSERT INTO replication_slot_holders (slot_name, owner, pid, heartbeat_micros) VALUES (?, ?, ?, ?)
        ON CONFLICT (slot_name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, heartbeat_micros = excluded.heartbeat_micros`)
        .run(name, owner, pid, nowMicros);
      return undefined;
    });
  }

  releaseSlot(name: string, owner: string, pid: number): void {
    this.#c.immediateNormal(() => {
      this.#c.sql('DELETE FROM replication_slot_holders WHERE slot_name = ? AND owner = ? AND pid = ?').run(name, owner, pid);
    });
  }

  listSlotHolders(): ReplicationSlotHolder[] {
    return (this.#c.sql('SELECT * FROM replication_slot_holders ORDER BY slot_name').all() as { slot_name: string; owner: string; pid: bigint; heartbeat_micros: bigint }[])
      .map((r) => ({ slotName: r.slot_name, owner: r.owner, pid: Number(r.pid), heartbeatMicros: BigInt(r.heartbeat_micros) }));
  }
}
