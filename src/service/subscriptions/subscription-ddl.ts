import type pg from 'pg';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SubscriptionMetadata, SubscriptionTable, Warehouse } from '../../lake/index.js';
import type { SubscriptionDdl } from '../../sql/index.js';
import { parseConninfo } from './conninfo.js';
import { closeSource, connectSource, quoteIdent, sourceError } from './source-connection.js';
import { publishedTables } from './source-tables.js';
import { createSubscriptionOptions, refreshOptions, setSubscriptionOptions } from './subscription-options.js';
import type { SubscriptionWorkers } from './subscription-workers.js';
import { ensureTargetTable } from './target-tables.js';

/** What running a subscription statement needs from the session. */
export interface SubscriptionDdlContext {
  readonly warehouse: Warehouse;
  /** Inside BEGIN … COMMIT (or a multi-statement string): what touches the publisher's slots refuses, as in PostgreSQL. */
  readonly inTransactionBlock: boolean;
  readonly notice: (severity: 'NOTICE' | 'WARNING', message: string, hint?: string) => void;
  /** The process's runners; absent where none run (then the catalog alone changes). */
  readonly workers?: SubscriptionWorkers;
}

/** CREATE / ALTER / DROP SUBSCRIPTION with PostgreSQL's meaning; returns the command tag. */
export async function runSubscriptionDdl(c: SubscriptionDdl, ctx: SubscriptionDdlContext): Promise<string> {
  switch (c.kind) {
    case 'createSubscription': await createSubscription(c, ctx); return 'CREATE SUBSCRIPTION';
    case 'alterSubscription': await alterSubscription(c, ctx); return 'ALTER SUBSCRIPTION';
    case 'dropSubscription': await dropSubscription(c, ctx); return 'DROP SUBSCRIPTION';
  }
}

function notInBlock(ctx: SubscriptionDdlContext, statement: string): void {
  if (ctx.inTransactionBlock) throw new FloeError(SqlState.activeSqlTransaction, `${statement} cannot run inside a transaction block`);
}

function findSubscription(w: Warehouse, name: string): SubscriptionMetadata {
  const s = w.listSubscriptions().find((x) => x.name === name);
  if (s === undefined) throw new FloeError(SqlState.undefinedObject, `subscription "${name}" does not exist`);
  return s;
}

async function withSource<T>(conninfo: string, replication: boolean, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectSource(conninfo, { replication });
  try {
    return await fn(client);
  } finally {
    await closeSource(client);
  }
}

/** The publications' tables now, each mapped to its Floe table (created when allowed); new ones start in `state`. */
async function subscribedTables(
  w: Warehouse, conninfo: string, publications: readonly string[], createTables: boolean, state: SubscriptionTable['state'],
): Promise<Omit<SubscriptionTable, 'syncLsn'>[]> {
  const sources = await withSource(conninfo, false, (c) => publishedTables(c, publications));
  const out: Omit<SubscriptionTable, 'syncLsn'>[] = [];
  for (const s of sources) {
    const t = await ensureTargetTable(w, s, createTables);
    out.push({ sourceSchema: s.schema, sourceName: s.name, tableId: t.id, state });
  }
  return out;
}

async function createSubscription(c: Extract<SubscriptionDdl, { kind: 'createSubscription' }>, ctx: SubscriptionDdlContext): Promise<void> {
  const w = ctx.warehouse;
  const opts = createSubscriptionOptions(c.name, c.options);
  if (opts.createSlot) notInBlock(ctx, 'CREATE SUBSCRIPTION ... WITH (create_slot = true)');
  if (w.listSubscriptions().some((s) => s.name === c.name)) throw new FloeError(SqlState.duplicateObject, `subscription "${c.name}" already exists`);
  parseConninfo(c.conninfo);
  let tables: Omit<SubscriptionTable, 'syncLsn'>[] = [];
  let createdSlot = false;
  if (opts.connect) {
    tables = await subscribedTables(w, c.conninfo, c.publications, opts.createTables, opts.copyData ? 'init' : 'ready');
    if (opts.createSlot && opts.slotName !== undefined) {
      const slot = opts.slotName;
      await withSource(c.conninfo, true, async (repl) => {
        try {
          // The slot keeps the WAL from here on; the copy takes its own snapshot later (a temporary slot of the runner).
          await repl.query(`CREATE_REPLICATION_SLOT ${quoteIdent(slot)} LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
        } catch (e) {
          throw sourceError(e, `could not create replication slot "${slot}"`);
        }
      });
      createdSlot = true;
      ctx.notice('NOTICE', `created replication slot "${slot}" on publisher`);
    }
  } else {
    ctx.notice('WARNING', 'subscription was created, but is not connected',
      'To initiate replication, you must manually create the replication slot, enable the subscription, and refresh the subscription.');
  }
  try {
    w.createSubscription({
      name: c.name, conninfo: c.conninfo, publications: c.publications, slotName: opts.slotName, enabled: opts.enabled, options: opts.stored, tables,
    });
  } catch (e) {
    if (createdSlot) await dropSlot(c.conninfo, opts.slotName!).catch(() => undefined);
    throw e;
  }
  ctx.workers?.reconcile();
}

async function alterSubscription(c: Extract<SubscriptionDdl, { kind: 'alterSubscription' }>, ctx: SubscriptionDdlContext): Promise<void> {
  const w = ctx.warehouse;
  const sub = findSubscription(w, c.name);
  const a = c.action;
  switch (a.kind) {
    case 'enable':
      if (sub.slotName === undefined) throw new FloeError(SqlState.objectNotInPrerequisiteState, 'cannot enable subscription that does not have a slot name');
      w.alterSubscription(c.name, { enabled: true });
      break;
    case 'disable':
      w.alterSubscription(c.name, { enabled: false });
      await ctx.workers?.stopWorker(sub.id);
      break;
    case 'connection':
      parseConninfo(a.conninfo);
      w.alterSubscription(c.name, { conninfo: a.conninfo });
      break;
    case 'setOptions': {
      const set = setSubscriptionOptions(a.options, sub.enabled);
      w.alterSubscription(c.name, { options: { ...sub.options, ...set.stored }, ...(set.slotName === undefined ? {} : { slotName: set.slotName }) });
      break;
    }
    case 'refresh': {
      if (!sub.enabled) throw new FloeError(SqlState.objectNotInPrerequisiteState, 'ALTER SUBSCRIPTION ... REFRESH is not allowed for disabled subscriptions');
      notInBlock(ctx, 'ALTER SUBSCRIPTION ... REFRESH');
      const { copyData } = refreshOptions('refresh', a.options);
      await refresh(w, sub, sub.publications, copyData);
      break;
    }
    case 'setPublication': case 'addPublication': case 'dropPublication': {
      const { refresh: doRefresh, copyData } = refreshOptions('publication', a.options);
      let pubs: string[];
      if (a.kind === 'setPublication') pubs = [...new Set(a.publications)];
      else if (a.kind === 'addPublication') {
        for (const p of a.publications) {
          if (sub.publications.includes(p)) throw new FloeError(SqlState.duplicateObject, `publication "${p}" is already in subscription "${sub.name}"`);
        }
        pubs = [...sub.publications, ...a.publications];
      } else {
        for (const p of a.publications) {
          if (!sub.publications.includes(p)) throw new FloeError(SqlState.undefinedObject, `publication "${p}" is not in subscription "${sub.name}"`);
        }
        pubs = sub.publications.filter((p) => !a.publications.includes(p));
        if (pubs.length === 0) throw new FloeError(SqlState.syntaxError, 'cannot drop all the publications from a subscription');
      }
      if (doRefresh) {
        if (!sub.enabled) {
          throw new FloeError(SqlState.syntaxError, 'ALTER SUBSCRIPTION with refresh is not allowed for disabled subscriptions', {
            hint: 'Use ALTER SUBSCRIPTION ... SET PUBLICATION ... WITH (refresh = false).',
          });
        }
        notInBlock(ctx, 'ALTER SUBSCRIPTION with refresh');
        await refresh(w, sub, pubs, copyData);
      } else {
        w.alterSubscription(c.name, { publications: pubs });
      }
      break;
    }
  }
  ctx.workers?.reconcile();
}

/** REFRESH PUBLICATION: tables now published join (copied first unless copy_data = false), tables no longer published leave. */
async function refresh(w: Warehouse, sub: SubscriptionMetadata, publications: readonly string[], copyData: boolean): Promise<void> {
  const tables = await subscribedTables(w, sub.conninfo, publications, sub.options.create_tables !== 'false', copyData ? 'init' : 'ready');
  w.alterSubscription(sub.name, { publications, tables });
}

async function dropSubscription(c: Extract<SubscriptionDdl, { kind: 'dropSubscription' }>, ctx: SubscriptionDdlContext): Promise<void> {
  const w = ctx.warehouse;
  const sub = w.listSubscriptions().find((s) => s.name === c.name);
  if (sub === undefined) {
    if (!c.ifExists) throw new FloeError(SqlState.undefinedObject, `subscription "${c.name}" does not exist`);
    ctx.notice('NOTICE', `subscription "${c.name}" does not exist, skipping`);
    return;
  }
  if (sub.slotName !== undefined) notInBlock(ctx, 'DROP SUBSCRIPTION');
  await ctx.workers?.stopWorker(sub.id);
  if (sub.slotName !== undefined) {
    const dropped = await dropSlot(sub.conninfo, sub.slotName);
    if (dropped) ctx.notice('NOTICE', `dropped replication slot "${sub.slotName}" on publisher`);
  }
  w.dropSubscription(sub.id);
}

/** DROP_REPLICATION_SLOT on the publisher; false when it was not there. */
async function dropSlot(conninfo: string, slot: string): Promise<boolean> {
  let client: pg.Client;
  try {
    client = await connectSource(conninfo, { replication: true });
  } catch (e) {
    throw new FloeError(SqlState.connectionFailure, `could not connect to publisher when attempting to drop replication slot "${slot}": ${(e as Error).message}`, {
      hint: 'Use ALTER SUBSCRIPTION ... DISABLE to disable the subscription, and then use ALTER SUBSCRIPTION ... SET (slot_name = NONE) to disassociate it from the slot.',
      cause: e,
    });
  }
  try {
    await client.query(`DROP_REPLICATION_SLOT ${quoteIdent(slot)} WAIT`);
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === SqlState.undefinedObject) return false;
    throw sourceError(e, `could not drop replication slot "${slot}" on publisher`);
  } finally {
    await closeSource(client);
  }
}
