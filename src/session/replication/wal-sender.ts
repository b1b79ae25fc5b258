import { createHash } from 'node:crypto';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ColumnDescription, StartupInfo, StatementResult } from '../../common/session-handler.js';
import { commitEndLsn, formatLsn, slotNameProblem, type ReplicationSlotRecord, type Warehouse } from '../../lake/index.js';
import { parseNameList, streamLogicalChanges } from '../../service/index.js';
import { otherStreamer, processSlotRegistry, type SlotRegistry } from '../../lake/index.js';
import { batchUnlessEmpty, rowsBatch } from '../result-columns.js';
import type { ReplicationCommand } from './replication-command.js';

export interface WalSenderDeps {
  readonly warehouse: Warehouse;
  readonly startup: StartupInfo;
  /** The session's TimeZone, for timestamptz text in the stream. */
  readonly timeZone: () => string;
  /** SNAPSHOT 'use': the session's open transaction reads as of this snapshot id from now on (the slot's consistent point). */
  readonly useSnapshot: (snapshotId: bigint) => Promise<void>;
  readonly registry?: SlotRegistry;
  /** The rows of a published table the role may receive (row-level security; stream-row-security.ts), or all when undefined. */
  readonly rowFilter?: RowFilterOf;
}

type RowFilterOf = NonNullable<Parameters<typeof streamLogicalChanges>[2]['rowFilter']>;

/** The only output plugin Floe has; PostgreSQL names the library it failed to find for any other. */
const PLUGIN = 'pgoutput';
/** Protocol versions of pgoutput Floe speaks: 3 adds two-phase commit messages, which Floe never needs to send. */
const MAX_PROTO_VERSION = 3;

function column(name: string, typeOid: number, typeSize: number): ColumnDescription {
  return { name, tableOid: 0, columnNumber: 0, typeOid, typeSize, typeModifier: -1 };
}

const TEXT = 25;
const INT4 = 23;

/**
 * The walsender side of a `replication=database` connection: IDENTIFY_SYSTEM,
 * CREATE_REPLICATION_SLOT … LOGICAL pgoutput, DROP_REPLICATION_SLOT and START_REPLICATION
 * … LOGICAL, whose stream src/service/replication produces. Slots are durable in the catalog
 * unless TEMPORARY (docs/design-notes.md, "Floe as a publisher").
 */
export class WalSender {
  readonly #deps: WalSenderDeps;
  readonly #registry: SlotRegistry;

  constructor(deps: WalSenderDeps) {
    this.#deps = deps;
    this.#registry = deps.registry ?? processSlotRegistry;
  }

  get #pid(): number {
    return this.#deps.startup.processId;
  }

  async run(c: ReplicationCommand, signal: AbortSignal): Promise<StatementResult> {
    switch (c.kind) {
      case 'identifySystem': return this.#identifySystem();
      case 'createSlot': return await this.#createSlot(c);
      case 'dropSlot': return this.#dropSlot(c.name, c.wait, signal);
      case 'startReplication': return this.#startReplication(c);
      case 'unsupported':
        throw new FloeError(SqlState.featureNotSupported, `${c.command} is not supported: Floe publishes logical replication only`);
    }
  }

  /** The connection ended: its temporary slots are dropped, as PostgreSQL drops them. */
  close(): void {
    this.#registry.releaseAll(this.#pid);
  }

  #currentLsn(): bigint {
    return commitEndLsn(this.#deps.warehouse.replication.lastSnapshotId());
  }

  #identifySystem(): StatementResult {
    // A stable system identifier per warehouse, as PostgreSQL's is per cluster.
    const systemId = BigInt.asUintN(63, createHash('sha256').update(this.#deps.warehouse.path).digest().readBigUInt64BE(0)).toString();
    const row = [systemId, 1, formatLsn(this.#currentLsn()), this.#deps.startup.database];
    return {
      kind: 'rows',
      columns: [column('systemid', TEXT, -1), column('timeline', INT4, 4), column('xlogpos', TEXT, -1), column('dbname', TEXT, -1)],
      batches: batchUnlessEmpty(rowsBatch([row], 4)),
      commandTag: () => 'IDENTIFY_SYSTEM',
    };
  }

  async #createSlot(c: Extract<ReplicationCommand, { kind: 'createSlot' }>): Promise<StatementResult> {
    const problem = slotNameProblem(c.name);
    if (problem !== undefined) throw new FloeError(SqlState.invalidName, problem.message, problem.hint === undefined ? {} : { hint: problem.hint });
    if (c.plugin === undefined) throw new FloeError(SqlState.featureNotSupported, 'physical replication slots are not supported: Floe publishes logical replication only');
    if (c.plugin !== PLUGIN) throw new FloeError('58P01', `could not access file "${c.plugin}": No such file or directory`);
    if (this.#find(c.name) !== undefined) throw new FloeError(SqlState.duplicateObject, `replication slot "${c.name}" already exists`);
    // The consistent point: everything committed so far is before it, every later commit after it.
    const last = this.#deps.warehouse.replication.lastSnapshotId();
    const lsn = commitEndLsn(last);
    if (c.snapshot === 'use') await this.#deps.useSnapshot(last);
    const slot: ReplicationSlotRecord = {
      name: c.name, plugin: c.plugin, database: this.#deps.startup.database, restartLsn: lsn, confirmedFlushLsn: lsn,
      createdMicros: BigInt(Date.now()) * 1000n,
    };
    if (c.temporary) this.#registry.addTemporary(slot, this.#pid);
    else this.#deps.warehouse.replication.createSlot(slot);
    const row = [c.name, formatLsn(lsn), null, c.plugin];
    return {
      kind: 'rows',
      columns: [column('slot_name', TEXT, -1), column('consistent_point', TEXT, -1), column('snapshot_name', TEXT, -1), column('output_plugin', TEXT, -1)],
      batches: batchUnlessEmpty(rowsBatch([row], 4)),
      commandTag: () => 'CREATE_REPLICATION_SLOT',
    };
  }

  #find(name: string): { slot: ReplicationSlotRecord; temporary: boolean } | undefined {
    const temp = this.#registry.temporary(name);
    if (temp !== undefined) return { slot: temp, temporary: true };
    const durable = this.#deps.warehouse.replication.listSlots().find((s) => s.name === name);
    return durable === undefined ? undefined : { slot: durable, temporary: false };
  }

  async #dropSlot(name: string, wait: boolean, signal: AbortSignal): Promise<StatementResult> {
    const found = this.#find(name);
    if (found === undefined) throw new FloeError(SqlState.undefinedObject, `replication slot "${name}" does not exist`);
    // WAIT: until the connection streaming from the slot is gone (a subscriber drops a slot just after stopping its worker),
    // in this process or another gateway's.
    const streamer = (): number | undefined => {
      const here = this.#registry.activePid(name);
      if (here !== undefined) return here === this.#pid ? undefined : here;
      return found.temporary ? undefined : otherStreamer(this.#deps.warehouse.replication.listSlotHolders(), name);
    };
    for (let holder = streamer(); holder !== undefined; holder = streamer()) {
      if (!wait) throw new FloeError('55006', `replication slot "${name}" is active for PID ${holder}`);
      if (signal.aborted) throw signal.reason;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (found.temporary) this.#registry.dropTemporary(name);
    else this.#deps.warehouse.replication.dropSlot(name);
    return { kind: 'command', tag: 'DROP_REPLICATION_SLOT' };
  }

  #startReplication(c: Extract<ReplicationCommand, { kind: 'startReplication' }>): StatementResult {
    if (!c.logical || c.slot === undefined) throw new FloeError(SqlState.featureNotSupported, 'physical replication is not supported: Floe publishes logical replication only');
    const found = this.#find(c.slot);
    if (found === undefined) throw new FloeError(SqlState.undefinedObject, `replication slot "${c.slot}" does not exist`);
    if (found.slot.database !== this.#deps.startup.database) {
      throw new FloeError(SqlState.objectNotInPrerequisiteState, `replication slot "${c.slot}" was not created in this database`);
    }
    const publications = pgoutputOptions(c.options);
    const name = c.slot;
    const slot = found.slot;
    const temporary = found.temporary;
    const pid = this.#pid;
    const warehouse = this.#deps.warehouse;
    const registry = this.#registry;
    // A durable slot is refused (55006) while another gateway of the warehouse streams it; a
    // stream whose mark another process took (this one hung past the lease) ends.
    const lost = new AbortController();
    if (temporary) registry.acquire(name, pid);
    else {
      registry.acquireDurable(name, pid, warehouse.replication, (holder) => lost.abort(
        new FloeError('55006', `replication slot "${name}" is active for PID ${holder}`)));
    }
    const startLsn = c.startLsn > slot.confirmedFlushLsn ? c.startLsn : slot.confirmedFlushLsn;
    const timeZone = this.#deps.timeZone();
    const rowFilter = this.#deps.rowFilter;
    return {
      kind: 'copyBoth',
      commandTag: 'START_REPLICATION',
      run: async (channel, signal) => {
        try {
          await streamLogicalChanges(channel, AbortSignal.any([signal, lost.signal]), {
            warehouse, publicationNames: publications, startLsn, timeZone, ...(rowFilter === undefined ? {} : { rowFilter }),
            confirm: (lsn) => (temporary ? registry.confirmTemporary(name, lsn) : warehouse.replication.confirmSlot(name, lsn)),
          });
        } finally {
          registry.release(name, pid);
        }
      },
    };
  }
}

/** pgoutput's options, checked as PostgreSQL checks them; returns the publication names. */
function pgoutputOptions(options: ReadonlyMap<string, string | undefined>): string[] {
  let proto: number | undefined;
  let publications: string[] | undefined;
  let streaming = false;
  for (const [name, value] of options) {
    switch (name) {
      case 'proto_version': {
        if (value === undefined || !/^\d+$/.test(value)) throw new FloeError(SqlState.invalidParameterValue, `invalid proto_version`);
        proto = Number(value);
        break;
      }
      case 'publication_names':
        publications = parseNameList(value ?? '');
        break;
      case 'binary':
        if (isTrue(value)) throw new FloeError(SqlState.featureNotSupported, 'binary replication output is not supported; values are sent as text');
        break;
      case 'streaming':
        // Allowed, never used: Floe publishes committed transactions only, so none is ever sent while in progress.
        streaming = isTrue(value);
        break;
      case 'two_phase': case 'messages': case 'origin':
        break;
      default:
        throw new FloeError(SqlState.invalidParameterValue, `unrecognized pgoutput option: ${name}`);
    }
  }
  if (proto === undefined) throw new FloeError(SqlState.invalidParameterValue, 'proto_version option missing');
  if (proto > MAX_PROTO_VERSION) {
    throw new FloeError(SqlState.featureNotSupported, `client sent proto_version=${proto} but server only supports protocol ${MAX_PROTO_VERSION} or lower`);
  }
  if (proto < 1) throw new FloeError(SqlState.featureNotSupported, `client sent proto_version=${proto} but server only supports protocol 1 or higher`);
  if (streaming && proto < 2) {
    throw new FloeError(SqlState.featureNotSupported, `requested proto_version=${proto} does not support streaming, need 2 or higher`);
  }
  if (publications === undefined) throw new FloeError(SqlState.invalidParameterValue, 'publication_names parameter missing');
  return publications;
}

function isTrue(value: string | undefined): boolean {
  return value === undefined || /^(true|on|yes|1)$/i.test(value);
}
