import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { TransactionStatus } from '../common/session-handler.js';
import type { ConstraintModes, LakeTransaction, TxnSavepoint, Warehouse } from '../lake/index.js';
import type { BoundStatement, ParsedStatement } from '../sql/index.js';
import { isolationLevel, isolationText } from './transaction-isolation.js';

/** One transaction block: BEGIN … COMMIT, or a multi-statement query string's implicit one. */
export interface Txn {
  /** A multi-statement simple query's implicit transaction: committed when the string ends, unless BEGIN made it explicit. */
  implicit: boolean;
  lake: LakeTransaction | undefined;
  failed: boolean;
  /** Each savepoint remembers the write count and the lake's mark (none before the lake transaction began). */
  readonly savepoints: { name: string; writes: number; lakeMark: TxnSavepoint | undefined; constraintModes: ConstraintModes }[];
  /** SET CONSTRAINTS so far (the lake transaction, begun lazily, takes them at begin). */
  constraintModes: ConstraintModes;
  writes: number;
  readonly startMicros: bigint;
  /** Values settings had before this transaction changed them: ROLLBACK restores all, COMMIT only SET LOCAL ones. */
  readonly settingsBefore: Map<string, string | undefined>;
  readonly localSettings: Set<string>;
  /** As asked (SHOW transaction_isolation); fixed once the transaction has read or written. */
  isolation: string;
}

export const nowMicros = (): bigint => BigInt(Date.now()) * 1000n;

/** Utility statements that do not start a repeatable-read transaction's snapshot. */
const TRANSACTION_CONTROL: ReadonlySet<string> = new Set([
  'begin', 'commit', 'rollback', 'savepoint', 'release', 'rollbackTo', 'set', 'setTransaction', 'reset', 'show', 'discard', 'noop',
]);

/**
 * The session's transaction block, if one is open, with its savepoints and its
 * failed state: what PostgreSQL's xact.c tracks for a backend. Ending a block
 * (commit, rollback) also touches settings, cursors and temporary tables, so the
 * transaction commands do that (commands/transaction-commands.ts).
 */
export class TransactionState {
  /** An explicit transaction (BEGIN … COMMIT), or a query string's implicit one; undefined in autocommit. */
  current: Txn | undefined;
  readonly #warehouse: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#warehouse = warehouse;
  }

  static create(implicit: boolean, defaultIsolation: string | undefined): Txn {
    return {
      implicit, lake: undefined, failed: false, savepoints: [], writes: 0, startMicros: nowMicros(), constraintModes: {},
      settingsBefore: new Map(), localSettings: new Set(), isolation: isolationText(defaultIsolation),
    };
  }

  /** What ReadyForQuery reports: idle, in a block, or in a failed block. */
  status(): TransactionStatus {
    if (this.current === undefined || this.current.implicit) return 'I';
    return this.current.failed ? 'E' : 'T';
  }

  /** The block's start, for pg_stat_activity's xact_start (none outside an explicit block). */
  explicitStartMicros(): bigint | undefined {
    return this.current === undefined || this.current.implicit ? undefined : this.current.startMicros;
  }

  /** An error inside a block aborts it until ROLLBACK; returns false when there is no block (the statement was its own transaction). */
  markFailed(): boolean {
    if (this.current === undefined) return false;
    this.current.failed = true;
    return true;
  }

  checkNotFailed(stmt: ParsedStatement): void {
    if (!this.current?.failed) return;
    if (!stmt.isTransactionEnd) {
      throw new FloeError(SqlState.inFailedSqlTransaction, 'current transaction is aborted, commands ignored until end of transaction block');
    }
  }

  require(what: string): Txn {
    if (!this.current) throw new FloeError(SqlState.noActiveSqlTransaction, `${what} can only be used in transaction blocks`);
    return this.current;
  }

  /** The lake transaction a write goes through: the block's (begun lazily), or a fresh autocommit one. */
  async writeTxn(defaultIsolation: string | undefined): Promise<{ lake: LakeTransaction; autocommit: boolean }> {
    const t = this.current;
    if (t) {
      t.lake ??= await this.#warehouse.begin({ isolation: isolationLevel(t.isolation), constraintModes: t.constraintModes });
      t.writes++;
      return { lake: t.lake, autocommit: false };
    }
    return { lake: await this.#warehouse.begin({ isolation: isolationLevel(defaultIsolation) }), autocommit: true };
  }

  /**
   * At READ COMMITTED each statement reads fresh snapshots; at REPEATABLE READ or
   * SERIALIZABLE the lake transaction begins at the first statement that reads, so
   * every read of a table goes through its snapshot, pinned at the first read of it.
   */
  async enterStatement(bound: BoundStatement): Promise<void> {
    const t = this.current;
    const control = bound.kind === 'utility' && TRANSACTION_CONTROL.has(bound.command.kind);
    if (t?.lake !== undefined && t.lake.state === 'open' && isolationLevel(t.isolation) === 'read committed' && !control) {
      t.lake.releaseReadSnapshots();
    }
    if (t === undefined || t.lake !== undefined || isolationLevel(t.isolation) === 'read committed') return;
    if (control) return;
    t.lake = await this.#warehouse.begin({ isolation: isolationLevel(t.isolation), constraintModes: t.constraintModes });
  }

  savepoint(name: string): void {
    const t = this.require('SAVEPOINT');
    t.savepoints.push({ name, writes: t.writes, lakeMark: t.lake?.state === 'open' ? t.lake.savepoint() : undefined, constraintModes: t.constraintModes });
  }

  release(name: string): void {
    const t = this.require('RELEASE SAVEPOINT');
    const at = savepointIndex(t, name);
    t.savepoints.splice(at);
  }

  async rollbackTo(name: string): Promise<void> {
    const t = this.require('ROLLBACK TO SAVEPOINT');
    const at = savepointIndex(t, name);
    const sp = t.savepoints[at]!;
    if (t.writes > sp.writes && t.lake !== undefined) {
      if (t.lake.state !== 'open') {
        // The lake transaction already ended (a failed commit attempt): nothing partial to keep.
        throw new FloeError(SqlState.inFailedSqlTransaction, 'the transaction can only be rolled back as a whole',
          { hint: 'Issue ROLLBACK.' });
      }
      await t.lake.rollbackTo(sp.lakeMark);
      t.writes = sp.writes;
    }
    // SET CONSTRAINTS since the savepoint is undone with it, as PostgreSQL restores its trigger state.
    if (t.constraintModes !== sp.constraintModes) {
      t.constraintModes = sp.constraintModes;
      if (t.lake?.state === 'open') await t.lake.setConstraintModes(t.constraintModes);
    }
    t.savepoints.splice(at + 1);
    t.failed = false;
  }
}

function savepointIndex(t: Txn, name: string): number {
  for (let i = t.savepoints.length - 1; i >= 0; i--) if (t.savepoints[i]!.name === name) return i;
  throw new FloeError('3B001', `savepoint "${name}" does not exist`);
}
