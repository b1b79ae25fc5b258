import { filesReadAt } from '../log/tiered-files.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { mapInLanes } from '../../common/map-in-lanes.js';
import { nodeKey } from '../bucket/bucket-node.js';
import type { FileRecord } from '../catalog/catalog.js';
import { OptimizerConflict } from '../catalog/optimizer-conflict.js';
import { resolveMergeEngine } from '../merge/merge-engine.js';
import { writableBranch } from '../refs/resolve-branch.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import { optimizingSettings } from '../table/optimizing-properties.js';
import { isKeyed, keyColumnsOf, physicalName } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros, toTableMetadata } from '../warehouse/lake-context.js';
import { deleteWritten, executeNodeRewrite } from './execute-node-rewrite.js';
import type { KeyedNodeRewriteResult, KeyedNodeRewriteTask, RewriteInputFile } from './keyed-node-rewrite-task.js';
import { withOptimizerRegistration } from './optimizer-registration.js';
import { rewriteResultOf } from './execute-rewrite-task.js';
import { optimizeCommitFiles } from './optimize-commit-files.js';
import type { OptimizeKind, OptimizeOptions, OptimizeResult } from './optimize-result.js';
import { planOptimize } from './plan-optimize.js';
import type { NodeJob } from './plan-optimize.js';
import { compactAppendTable } from './compact-append-table.js';
import { tierChangeGroups } from '../log/tier-log-files.js';
import type { TierResult } from '../log/tier-log-files.js';

const MAX_ATTEMPTS = 3;

/**
 * Optimizes a table's branch by kind (plan-optimize.ts): folds change files below the
 * low watermark W into base files, node by node, splits nodes past the target size and
 * (major, full) merges undersized siblings. Planning and the commit run here; each node's
 * rewrite is a self-contained task (executeNodeRewrite) that `opts.runNodeRewrite` may
 * run on a worker thread. One run is one commit.
 *
 * Why this never loses or reorders a concurrent change: every transaction with a seq
 * below W has finished (W is the smallest start seq of any open transaction), so all
 * changes below W that will ever exist on this branch are already in the head read
 * here; a new base records W as its file seq and readers skip change files below it.
 * Changes at or above W stay in the change store, and keep winning over base rows by
 * (seq, offset) against the per-row _seq. A writer that routed rows by the old frontier
 * commits them at the old nodes: after a split those are ancestors of the new nodes
 * (read with a hash filter), after a merge descendants of the new node (read whole);
 * either way on the new node's line and at or above W, so scans and later folds read them.
 * The commit names every file it read or replaces as "must still be visible": only
 * another optimizer can remove those, so only another optimizer commit on the same nodes
 * conflicts, and then this run re-plans. Optimizer commits never fail a writer.
 */
export async function optimizeTable(ctx: LakeContext, tableIn: TableMetadata, opts: OptimizeOptions): Promise<OptimizeResult> {
  const { catalog } = ctx;
  const rec = catalog.getTableById(tableIn.id);
  if (rec === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${tableIn.name}" does not exist`);
  const table = toTableMetadata(rec);
  const ref = opts.ref ?? 'main';
  catalog.abortStaleTxns(nowMicros() - BigInt(ctx.staleTransactionMs) * 1000n);
  let conflicts = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await optimizeOnce(ctx, table, ref, opts);
      return { ...r, conflicts };
    } catch (e) {
      if (e instanceof OptimizerConflict && attempt < MAX_ATTEMPTS) {
        conflicts++;
        continue;
      }
      if (e instanceof OptimizerConflict) {
        throw new FloeError(SqlState.serializationFailure, `optimize of "${table.name}" kept conflicting with concurrent optimizer commits`, { hint: 'Run it again.' });
      }
      throw e;
    }
  }
}

function emptyResult(kind: OptimizeKind, watermark: bigint): Omit<OptimizeResult, 'conflicts'> {
  return {
    kind, snapshotId: undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0, changeFilesCompacted: 0, baseFilesWritten: 0,
    filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, lowWatermark: watermark,
  };
}

async function optimizeOnce(ctx: LakeContext, table: TableMetadata, ref: string, opts: OptimizeOptions): Promise<Omit<OptimizeResult, 'conflicts'>> {
  const { catalog } = ctx;
  throwIfAborted(opts.signal, table);
  if (!isKeyed(table)) return compactAppendTable(ctx, table, ref, opts);
  // W first, then the head: every transaction below W finished before the head was read.
  const watermark = catalog.lowWatermark();
  const head = writableBranch(catalog, table, ref).snapshotId;
  const kind = opts.kind ?? 'minor';
  return withOptimizerRegistration(ctx, (txnId) => optimizeNodes(ctx, table, ref, opts, kind, watermark, head, txnId));
}

async function optimizeNodes(
  ctx: LakeContext, table: TableMetadata, ref: string, opts: OptimizeOptions, kind: OptimizeKind, watermark: bigint, head: bigint, txnId: string,
): Promise<Omit<OptimizeResult, 'conflicts'>> {
  const { catalog } = ctx;
  // Tiered files narrowed to the commits on this branch (one made on another branch may hold newer ones).
  const files = filesReadAt(catalog, table.id, head, catalog.visibleFiles(table.id, head));
  const times = new Map<bigint, bigint | undefined>();
  const settings = opts.triggers ?? optimizingSettings(table);
  const plan = planOptimize({
    files, kind, watermark, settings, useTriggers: opts.triggers !== undefined, nowMicros: nowMicros(),
    commitMicros: (id) => {
      if (!times.has(id)) times.set(id, catalog.getSnapshot(table.id, id)?.committedAtMicros);
      return times.get(id);
    },
  });
  const compactions = plan.jobs.filter((j) => j.reason === 'compact');
  const rewrites = { ...plan, jobs: plan.jobs.filter((j) => j.reason !== 'compact') };
  const total = rewrites.jobs.length;
  opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: total });
  const compacted = compactions.length === 0 ? undefined : await compactChanges(ctx, table, ref, compactions, opts);
  if (total === 0) {
    opts.onProgress?.({ phase: 'done', nodesDone: 0, nodesTotal: 0 });
    return withCompacted(emptyResult(kind, watermark), compacted);
  }
  const dvs = deletionVectorsByTarget(files);
  const tasks = rewrites.jobs.map((job) => rewriteTask(ctx, table, job, watermark, settings.targetSize, dvs));
  const results = await runRewrites(ctx, table, rewrites.jobs, tasks, opts);
  try {
    throwIfAborted(opts.signal, table);
    const c = optimizeCommitFiles(rewrites, results, files, watermark, dvs);
    const nodesSplit = results.filter((r, i) => r.split && rewrites.jobs[i]!.parts.length === 1).length;
    const nodesMerged = results.filter((r, i) => !r.split && rewrites.jobs[i]!.parts.length === 2).length;
    opts.onProgress?.({ phase: 'commit', nodesDone: total, nodesTotal: total });
    const [snap] = catalog.commit([{
      tableId: table.id, branch: ref, operation: 'optimize', schemaId: catalog.getTableById(table.id)?.schemaId ?? table.schemaId,
      summary: {
        kind, 'nodes-optimized': String(total), 'nodes-split': String(nodesSplit), 'nodes-merged': String(nodesMerged),
        'change-files-folded': String(c.changeFilesFolded), 'low-watermark': String(watermark),
      },
      addFiles: c.addFiles, removeFileIds: c.removeFileIds, requireVisible: c.requireVisible, requireVisibleSince: head,
    }], txnId, nowMicros());
    opts.onProgress?.({ phase: 'done', nodesDone: total, nodesTotal: total });
    return withCompacted({
      kind, snapshotId: snap!.id, nodesOptimized: total, nodesSplit, nodesMerged, changeFilesFolded: c.changeFilesFolded,
      changeFilesCompacted: 0, baseFilesWritten: c.addFiles.filter((f) => f.path !== '').length, lowWatermark: watermark,
      filesIn: c.filesIn, bytesIn: c.bytesIn, rowsIn: c.rowsIn,
      filesOut: results.reduce((n, r) => n + r.filesOut, 0),
      bytesOut: results.reduce((n, r) => n + r.bytesOut, 0),
      rowsOut: results.reduce((n, r) => n + r.rowsOut, 0),
    }, compacted);
  } catch (e) {
    for (const r of results) await deleteWritten(ctx.storage, r.files);
    throw e;
  }
}

/** Share of a compaction's input rows the largest input may pass the rest by and still be rewritten (size tiers). */
const COMPACTION_LEVEL_RATIO = 4;

/**
 * The 'compact' jobs: each node's change files below W become one tiered change file,
 * swapped in place as tiering swaps log files (no snapshot; what every snapshot reads is
 * unchanged; a fold or tiering that changed the files first makes the swap a no-op). Each
 * group's rewrite runs where node rewrites do (`opts.runNodeRewrite`: the service's optimizer
 * threads), the swap on this thread.
 */
async function compactChanges(ctx: LakeContext, table: TableMetadata, ref: string, jobs: readonly NodeJob[], opts: OptimizeOptions): Promise<TierResult> {
  throwIfAborted(opts.signal, table);
  const nodes = new Set(jobs.map((j) => `${j.partitionKey}\u0000${nodeKey(j.node)}`));
  const run = opts.runNodeRewrite;
  return tierChangeGroups(ctx, table, 'change', {
    branches: [ref], nodes, levelRatio: COMPACTION_LEVEL_RATIO, minFiles: 2,
    ...(run ? { runTask: async (task) => rewriteResultOf('change-group', await run(task)) } : {}),
  });
}

function withCompacted(r: Omit<OptimizeResult, 'conflicts'>, c: TierResult | undefined): Omit<OptimizeResult, 'conflicts'> {
  if (c === undefined || c.filesOut === 0) return r;
  return {
    ...r, changeFilesCompacted: c.filesIn,
    filesIn: r.filesIn + c.filesIn, bytesIn: r.bytesIn + c.bytesIn, rowsIn: r.rowsIn + c.rows,
    filesOut: r.filesOut + c.filesOut, bytesOut: r.bytesOut + c.bytesOut, rowsOut: r.rowsOut + c.rows,
  };
}

/**
 * Runs the rewrites, at most `opts.rewriteConcurrency` at a time, checking the signal
 * before each. If one fails or the run is aborted, waits for those in flight and deletes
 * everything written, so the table and its directory are as they were.
 */
async function runRewrites(
  ctx: LakeContext, table: TableMetadata, jobs: readonly NodeJob[], tasks: readonly KeyedNodeRewriteTask[], opts: OptimizeOptions,
): Promise<KeyedNodeRewriteResult[]> {
  const run = async (task: KeyedNodeRewriteTask): Promise<KeyedNodeRewriteResult> =>
    (opts.runNodeRewrite === undefined ? executeNodeRewrite(task) : rewriteResultOf('keyed-node', await opts.runNodeRewrite(task)));
  const results: (KeyedNodeRewriteResult | undefined)[] = new Array(tasks.length);
  let done = 0;
  try {
    await mapInLanes(tasks, opts.rewriteConcurrency ?? 1, async (task, i) => {
      if (opts.signal?.aborted) throw abortError(table);
      opts.onProgress?.({ phase: 'node', partition: jobs[i]!.partitionKey, node: nodeKey(jobs[i]!.node), nodesDone: done, nodesTotal: tasks.length });
      results[i] = await run(task);
      done++;
    });
  } catch (error) {
    for (const r of results) if (r !== undefined) await deleteWritten(ctx.storage, r.files);
    throw error;
  }
  return results as KeyedNodeRewriteResult[];
}

function rewriteTask(
  ctx: LakeContext, table: TableMetadata, job: NodeJob, watermark: bigint, targetSizeBytes: number, dvs: ReadonlyMap<number, FileRecord>,
): KeyedNodeRewriteTask {
  const keyCols = keyColumnsOf(table);
  const mergeEngine = resolveMergeEngine(table);
  const deleted = (f: FileRecord): number[] => [...(dvs.get(f.fileId)?.dvPositions ?? [])];
  const input = (f: FileRecord, hashFilter: NodeJob['node'] | undefined): RewriteInputFile => ({
    fileId: f.fileId, path: f.path, rowCount: f.rowCount, sizeBytes: f.sizeBytes, seq: f.seq, firstOffset: f.firstOffset,
    node: { mask: f.nodeMask, index: f.nodeIndex }, ...(hashFilter !== undefined ? { hashFilter } : {}),
    ...(f.snapshots === undefined ? {} : { snapshots: f.snapshots }),
    ...(dvs.has(f.fileId) ? { deletedPositions: deleted(f) } : {}),
  });
  const kept = new Set(job.kept?.map((f) => f.fileId));
  return {
    kind: 'keyed-node', tableId: table.id, storage: ctx.storageConfig, columns: table.columns,
    keyNames: keyCols.map((c) => physicalName(c.fieldId)), keyTypes: keyCols.map((c) => c.type),
    partitionKey: job.partitionKey, partitionValues: job.partitionValues, node: job.node,
    parts: job.parts.map((p) => ({
      node: p.frontier.node,
      baseFiles: p.frontier.baseFiles.filter((f) => !kept.has(f.fileId)).map((f) => input(f, undefined)),
      // an ancestor's change file also holds other nodes' keys: keep only this part's
      changeFiles: p.changes.map((f) => input(f, f.nodeMask < p.frontier.node.mask ? p.frontier.node : undefined)),
    })),
    watermark, targetSizeBytes, split: job.split,
    ...(mergeEngine === undefined ? {} : { mergeEngine }),
    ...(job.kept === undefined ? {} : {
      delta: job.kept.map((f) => ({ fileId: f.fileId, path: f.path, rowCount: f.rowCount, partitionValues: f.partitionValues, deletedPositions: deleted(f) })),
    }),
  };
}

function abortError(table: TableMetadata): FloeError {
  return new FloeError(SqlState.queryCanceled, `canceling optimize of "${table.name}"`, { detail: 'The optimize was aborted; the table is unchanged.' });
}

function throwIfAborted(signal: AbortSignal | undefined, table: TableMetadata): void {
  if (signal?.aborted) throw abortError(table);
}
