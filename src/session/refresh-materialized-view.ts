import { setImmediate } from 'node:timers/promises';
import { FloeError } from '../common/floe-error.js';
import { formatType } from '../common/sql-type.js';
import { SqlState } from '../common/sqlstate.js';
import { executePlan } from '../exec/index.js';
import { changelogCompleteBetween, type MaterializedViewRefresh, type TableMetadata } from '../lake/index.js';
import { planRefresh, type RefreshInput, type RefreshRequest } from '../sql/index.js';
import { boundRefreshStatement } from './kept-refresh-statements.js';
import { changesNetToNothing } from './changes-net-to-nothing.js';
import type { SessionContext } from './session-context.js';

/** What a refresh did (floe_materialized_views shows the last one). */
export type RefreshOutcome = MaterializedViewRefresh;

const nowMicros = (): bigint => BigInt(Date.now()) * 1000n;

/**
 * Refreshes a materialized view in a transaction of its own: one MERGE into its table (the
 * rows that change), committed with the positions it moves to, only from the generation it
 * read (so a refresh is applied once, and a crashed one leaves the view as it was). An
 * incremental refresh whose old snapshots are gone (expired) is done in full instead.
 */
export async function refreshMaterializedView(ctx: SessionContext, table: TableMetadata, request: RefreshRequest, signal: AbortSignal): Promise<RefreshOutcome> {
  if (ctx.transaction.current !== undefined) {
    throw new FloeError(SqlState.activeSqlTransaction, 'REFRESH MATERIALIZED VIEW cannot run inside a transaction block', {
      hint: 'Floe refreshes a materialized view in a transaction of its own.',
    });
  }
  return oneAtATime(viewKey(ctx, table), async () => {
    try {
      return await refreshOnce(ctx, table, request, signal);
    } catch (e) {
      // The old snapshots an incremental refresh reads were expired: start over from the query.
      if (request === 'auto' && e instanceof FloeError && e.sqlstate === SqlState.invalidParameterValue && /snapshot/i.test(e.message)) {
        return refreshOnce(ctx, table, 'full', signal);
      }
      throw e;
    }
  });
}

/** A view of this process's warehouses, for the maps below. */
function viewKey(ctx: SessionContext, table: TableMetadata): string {
  return `${ctx.deps.warehouse.path}\u0000${table.id}`;
}

/**
 * What the last check of each change set found (by view and change set id), and how many
 * refreshes have passed it by since. A set that netted to nothing is checked at every
 * refresh (its view's stream touches columns the view does not read, and leaving its term
 * out pays); one that netted to something is checked again only every RECHECK_AFTER
 * refreshes, so a view whose changes always count pays for no checks.
 */
const lastChecks = new Map<string, { empty: boolean; passedBy: number }>();
const RECHECK_AFTER = 8;

function worthChecking(key: string): boolean {
  const last = lastChecks.get(key);
  if (last === undefined || last.empty || last.passedBy + 1 >= RECHECK_AFTER) return true;
  last.passedBy++;
  return false;
}

/** Refreshes of one view running in this process, by warehouse and view: each waits for the one before. */
const running = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier refresh of the same view in this process: a REFRESH meeting
 * the refresh service's (or another session's) waits for it rather than failing with 40001.
 * Across processes the generation check still lets only one of two racing refreshes commit.
 */
async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = running.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(fn);
  const settled = mine.catch(() => undefined);
  running.set(key, settled);
  try {
    return await mine;
  } finally {
    if (running.get(key) === settled) running.delete(key);
  }
}

async function refreshOnce(ctx: SessionContext, table: TableMetadata, request: RefreshRequest, signal: AbortSignal): Promise<RefreshOutcome> {
  const w = ctx.deps.warehouse;
  const started = performance.now();
  const mv = w.getMaterializedView(table.id);
  if (mv === undefined) throw new FloeError(SqlState.undefinedTable, `materialized view "${table.name}" does not exist`);
  const heads = w.branchHeads('main');
  const env = { ...ctx.bindEnv(), searchPath: mv.searchPath, maintainsView: table.id };
  const input: RefreshInput = {
    definition: mv.definition, env, request, fullRefreshReason: mv.fullRefreshReason, populated: mv.populated, positions: mv.positions, heads, dependsOn: mv.dependsOn,
    changelogComplete: (tableId, from, to) => {
      const base = w.getTableById(tableId);
      return base !== undefined && changelogCompleteBetween(w.listSnapshots(base, { from: from + 1n, to }), from, to);
    },
    target: { namespace: table.namespace, name: table.name, columns: table.columns.map((c) => ({ name: c.name, type: formatType(c.type), hidden: c.hidden === true })) },
    checkChanges: (id) => worthChecking(`${viewKey(ctx, table)}/${id}`),
  };
  let plan = planRefresh(input);
  const lake = await w.begin({ isolation: 'read committed' });
  let rows = 0;
  try {
    // Every table is read as of the same moment the positions were taken at.
    let newest = 0n;
    for (const id of heads.values()) if (id > newest) newest = id;
    lake.readAtOrBefore(newest);
    if (plan.checks !== undefined) {
      const emptyChanges = new Set<string>();
      // At once: each check mostly waits for its table's change files.
      const empty = await Promise.all(plan.checks.map(async (check) => {
        const base = w.getTableById(check.tableId);
        return base !== undefined && await changesNetToNothing(w, base, check);
      }));
      plan.checks.forEach((check, i) => {
        lastChecks.set(`${viewKey(ctx, table)}/${check.id}`, { empty: empty[i]!, passedBy: 0 });
        if (empty[i]!) emptyChanges.add(check.id);
      });
      plan = planRefresh({ ...input, emptyChanges });
    }
    if (plan.statement !== undefined) {
      // A refresh is background work: between building and binding its MERGE, and planning it
      // (each milliseconds of one thread when not kept from the last refresh), the queries that
      // came meanwhile go first.
      await setImmediate();
      const bound = boundRefreshStatement(ctx, table.id, plan.statement, env, mv.definition, Object.keys(plan.positions).map(Number));
      await setImmediate();
      // An incremental refresh runs again in seconds over mostly the same base files: its scans
      // keep what they decode. Its MERGE's source is grouped per view key, so its terms may run at once.
      const physical = ctx.physicalPlan(bound, { rereads: plan.mode === 'incremental', rowOrderFree: true });
      for await (const _ of executePlan(physical, ctx.execContext(plan.statement.params, signal, lake, (n) => { rows += n; }))) { /* no RETURNING */ }
    }
    const refresh: RefreshOutcome = { mode: plan.mode, atMicros: nowMicros(), durationMs: Math.round(performance.now() - started), rowsChanged: rows };
    lake.recordViewRefresh({ tableId: table.id, fromGeneration: mv.generation, positions: plan.positions, populated: plan.mode !== 'no data', refresh });
    await ctx.commitLake(lake);
    return refresh;
  } catch (e) {
    if (lake.state === 'open') await lake.abort().catch(() => undefined);
    throw e;
  }
}
