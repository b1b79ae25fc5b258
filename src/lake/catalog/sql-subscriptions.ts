import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus, SubscriptionTable,
  SubscriptionTableState,
} from '../subscription/subscription-metadata.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Subscriptions in the catalog (CDC in): one row per subscription with its stored
 * position and the runner's last status, one row per published table with its copy state.
 * The position moves only inside a data commit (recordProgress, called from the commit's
 * own transaction), so a crash can never leave data and position apart.
 */
interface SubscriptionRow {
  sub_id: bigint; name: string; conninfo: string; publications: string; slot_name: string | null; enabled: bigint;
  options: string; generation: bigint; applied_lsn: bigint; applied_source_micros: bigint | null; applied_micros: bigint | null;
  received_lsn: bigint; source_wal_end: bigint; last_msg_send_micros: bigint | null; last_msg_receipt_micros: bigint | null;
  pending_since_micros: bigint | null; pid: bigint | null; last_error: string | null; last_error_micros: bigint | null;
}

interface TableRow { source_schema: string; source_name: string; table_id: bigint; state: string; sync_lsn: bigint }

const optional = (v: bigint | null): bigint | undefined => (v === null ? undefined : BigInt(v));

export class SqlSubscriptions {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  list(): SubscriptionMetadata[] {
    return this.#c.cached('subscriptions', () =>
      (this.#c.sql('SELECT * FROM subscriptions ORDER BY sub_id').all() as SubscriptionRow[]).map((r) => this.#toMetadata(r)));
  }

  get(name: string): SubscriptionMetadata | undefined {
    return this.list().find((s) => s.name === name);
  }

  #toMetadata(r: SubscriptionRow): SubscriptionMetadata {
    const tables = (this.#c.sql('SELECT * FROM subscription_tables WHERE sub_id = ? ORDER BY source_schema, source_name').all(r.sub_id) as TableRow[])
      .map((t): SubscriptionTable => ({
        sourceSchema: t.source_schema, sourceName: t.source_name, tableId: Number(t.table_id),
        state: t.state as SubscriptionTableState, syncLsn: BigInt(t.sync_lsn),
      }));
    return {
      id: Number(r.sub_id), name: r.name, conninfo: r.conninfo, publications: JSON.parse(r.publications) as string[],
      slotName: r.slot_name ?? undefined, enabled: Number(r.enabled) !== 0, options: JSON.parse(r.options) as Record<string, string>,
      generation: Number(r.generation), tables, appliedLsn: BigInt(r.applied_lsn),
      appliedSourceMicros: optional(r.applied_source_micros), appliedMicros: optional(r.applied_micros),
      receivedLsn: BigInt(r.received_lsn), sourceWalEnd: BigInt(r.source_wal_end),
      lastMsgSendMicros: optional(r.last_msg_send_micros), lastMsgReceiptMicros: optional(r.last_msg_receipt_micros),
      pendingSinceMicros: optional(r.pending_since_micros), pid: r.pid === null ? undefined : Number(r.pid),
      lastError: r.last_error ?? undefined, lastErrorMicros: optional(r.last_error_micros),
    };
  }

  /** 42710 when the name is taken. */
  create(s: NewSubscription): SubscriptionMetadata {
    return this.#c.immediate(() => {
      if (this.#c.sql('SELECT 1 FROM subscriptions WHERE name = ?').get(s.name) !== undefined) {
        throw new FloeError(SqlState.duplicateObject, `subscription "${s.name}" already exists`);
      }
      const id = this.#c.nextId();
      this.#c.sql('INSERT INTO subscriptions (sub_id, name, conninfo, publications, slot_name, enabled, options) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(id, s.name, s.conninfo, JSON.stringify(s.publications), s.slotName ?? null, s.enabled ? 1 : 0, JSON.stringify(s.options));
      this.#putTables(id, s.tables);
      return this.#toMetadata(this.#c.sql('SELECT * FROM subscriptions WHERE sub_id = ?').get(id) as SubscriptionRow);
    });
  }

  #putTables(id: number, tables: NewSubscription['tables']): void {
    const insert = this.#c.sql(`INSERT INTO subscription_tables (sub_id, source_schema, source_name, table_id, state) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (sub_id, source_schema, source_name) DO UPDATE SET table_id = excluded.table_id`);
    for (const t of tables) insert.run(id, t.sourceSchema, t.sourceName, t.tableId, t.state);
  }

  /** 42704 when it does not exist. Every change moves the generation, so a runner restarts on it. */
  alter(name: string, patch: SubscriptionPatch): SubscriptionMetadata {
    return this.#c.immediate(() => {
      const row = this.#c.sql('SELECT * FROM subscriptions WHERE name = ?').get(name) as SubscriptionRow | undefined;
      if (row === undefined) throw new FloeError(SqlState.undefinedObject, `subscription "${name}" does not exist`);
      const set = (col: string, v: unknown) => this.#c.sql(`UPDATE subscriptions SET ${col} = ? WHERE sub_id = ?`).run(v, row.sub_id);
      if (patch.enabled !== undefined) set('enabled', patch.enabled ? 1 : 0);
      if (patch.conninfo !== undefined) set('conninfo', patch.conninfo);
      if (patch.publications !== undefined) set('publications', JSON.stringify(patch.publications));
      if (patch.slotName !== undefined) set('slot_name', patch.slotName);
      if (patch.options !== undefined) set('options', JSON.stringify(patch.options));
      if (patch.tables !== undefined) {
        const keep = new Set(patch.tables.map((t) => JSON.stringify([t.sourceSchema, t.sourceName])));
        const drop = this.#c.sql('DELETE FROM subscription_tables WHERE sub_id = ? AND source_schema = ? AND source_name = ?');
        for (const t of this.#c.sql('SELECT source_schema, source_name FROM subscription_tables WHERE sub_id = ?').all(row.sub_id) as TableRow[]) {
          if (!keep.has(JSON.stringify([t.source_schema, t.source_name]))) drop.run(row.sub_id, t.source_schema, t.source_name);
        }
        // Tables already there keep their state and sync LSN: only new ones take the state given.
        const insert = this.#c.sql(`INSERT INTO subscription_tables (sub_id, source_schema, source_name, table_id, state) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`);
        for (const t of patch.tables) insert.run(row.sub_id, t.sourceSchema, t.sourceName, t.tableId, t.state);
      }
      set('generation', Number(row.generation) + 1);
      return this.#toMetadata(this.#c.sql('SELECT * FROM subscriptions WHERE sub_id = ?').get(row.sub_id) as SubscriptionRow);
    });
  }

  drop(id: number): void {
    this.#c.immediate(() => {
      this.#c.sql('DELETE FROM subscriptions WHERE sub_id = ?').run(id);
      this.#c.sql('DELETE FROM subscription_tables WHERE sub_id = ?').run(id);
      this.#c.sql('DELETE FROM subscription_runners WHERE sub_id = ?').run(id);
    });
  }

  /**
   * Takes or keeps the lease to run a subscription: granted when nobody holds it, `owner`
   * already does (a heartbeat), or the holder's heartbeat is older than the lease (its
   * process died). One write transaction, so two processes queue rather than both take it.
   * A subscription that no longer exists cannot be taken.
   */
  claimRunner(id: number, owner: string, nowMicros: bigint, leaseMicros: bigint): boolean {
    return this.#c.immediateNormal(() => {
      if (this.#c.sql('SELECT 1 FROM subscriptions WHERE sub_id = ?').get(id) === undefined) return false;
      const r = this.#c.sql('SELECT owner, heartbeat_micros FROM subscription_runners WHERE sub_id = ?').get(id) as { owner: string; heartbeat_micros: bigint } | undefined;
      if (r !== undefined && r.owner !== owner && nowMicros - BigInt(r.heartbeat_micros) <= leaseMicros) return false;
      this.#c.sql(`INSERT INTO subscription_runners (sub_id, owner, heartbeat_micros) VALUES (?, ?, ?)
        ON CONFLICT (sub_id) DO UPDATE SET owner = excluded.owner, heartbeat_micros = excluded.heartbeat_micros`).run(id, owner, nowMicros);
      return true;
    });
  }

  /** Gives the lease up, if `owner` still holds it: another process may take it at once. */
  releaseRunner(id: number, owner: string): void {
    this.#c.immediateNormal(() => {
      this.#c.sql('DELETE FROM subscription_runners WHERE sub_id = ? AND owner = ?').run(id, owner);
    });
  }

  /** Each subscription's runner lease: holder and last heartbeat. */
  runners(): SubscriptionRunner[] {
    return (this.#c.sql('SELECT * FROM subscription_runners ORDER BY sub_id').all() as { sub_id: bigint; owner: string; heartbeat_micros: bigint }[])
      .map((r) => ({ subscriptionId: Number(r.sub_id), owner: r.owner, heartbeatMicros: BigInt(r.heartbeat_micros) }));
  }

  /**
   * Inside a commit's own database transaction: the position its data reaches, and the
   * tables whose copy it holds. The applied LSN never moves back; a dropped subscription's
   * progress is ignored (its data still commits).
   */
  recordProgress(p: SubscriptionProgress, nowMicros: bigint): void {
    if (p.appliedLsn !== undefined) {
      this.#c.sql(`UPDATE subscriptions SET applied_lsn = ?, applied_source_micros = ?, applied_micros = ?
        WHERE sub_id = ? AND applied_lsn <= ?`).run(p.appliedLsn, p.appliedSourceMicros ?? null, nowMicros, p.subscriptionId, p.appliedLsn);
    }
    if (p.synced !== undefined) {
      // Only a table still waiting for its copy: a second copy (a runner that lost its lease
      // while copying) would add its rows again to a table without a key, so its commit fails.
      const ready = this.#c.sql(`UPDATE subscription_tables SET state = 'ready', sync_lsn = ?
        WHERE sub_id = ? AND source_schema = ? AND source_name = ? AND state = 'init'`);
      const present = this.#c.sql('SELECT state FROM subscription_tables WHERE sub_id = ? AND source_schema = ? AND source_name = ?');
      for (const t of p.synced.tables) {
        if (ready.run(p.synced.lsn, p.subscriptionId, t.schema, t.name).changes === 0 && present.get(p.subscriptionId, t.schema, t.name) !== undefined) {
          throw new FloeError(SqlState.serializationFailure, `table "${t.schema}.${t.name}" of the subscription was copied by another runner meanwhile`);
        }
      }
    }
  }

  /** The runner's view of the source (no fsync: it is a report, refreshed every second while streaming). */
  saveStatus(id: number, status: SubscriptionStatus): void {
    this.#c.immediateNormal(() => {
      this.#c.sql(`UPDATE subscriptions SET received_lsn = ?, source_wal_end = ?, last_msg_send_micros = ?, last_msg_receipt_micros = ?,
        pending_since_micros = ?, pid = ? WHERE sub_id = ?`).run(
        status.receivedLsn, status.sourceWalEnd, status.lastMsgSendMicros ?? null, status.lastMsgReceiptMicros ?? null,
        status.pendingSinceMicros ?? null, status.pid ?? null, id);
    });
  }

  /** null clears it (the runner streams again). */
  saveError(id: number, error: string | null, nowMicros: bigint): void {
    this.#c.immediateNormal(() => {
      this.#c.sql('UPDATE subscriptions SET last_error = ?, last_error_micros = ? WHERE sub_id = ?')
        .run(error, error === null ? null : nowMicros, id);
    });
  }
}
