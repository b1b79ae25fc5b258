import { isFloeError } from '../../common/floe-error.js';
import type { FileRecord, FileReplacement, NewFileRecord } from '../catalog/catalog.js';
import { HEAD_MOVED } from '../catalog/catalog.js';
import { OptimizerConflict } from '../catalog/optimizer-conflict.js';
import { writableBranch } from '../refs/resolve-branch.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import { optimizingSettings } from '../table/optimizing-properties.js';
import type { TableMetadata } from '../table/table-metadata.js';
import { stagedFileId } from '../txn/staged-file-id.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros } from '../warehouse/lake-context.js';
import type { AppendFilesRewriteResult, AppendFilesRewriteTask } from './append-files-rewrite-task.js';
import { withOptimizerRegistration } from './optimizer-registration.js';
import { rewriteResultOf } from './execute-rewrite-task.js';
import { executeAppendFilesRewrite } from './execute-append-files-rewrite.js';
import type { OptimizeOptions, OptimizeResult } from './optimize-result.js';
import { planAppendRewrites } from './plan-append-rewrites.js';
import { oldestLogFileMicros } from './append-optimizing-metrics.js';
import { appendLogDue } from './optimizing-triggers.js';
import type { AppendRewriteGroup } from './plan-append-rewrites.js';
import { replacedPosition } from './replaced-position.js';

/** Commits retried when a writer moved the head meanwhile (each retry only re-reads the head). */
const MAX_COMMIT_ATTEMPTS = 50;


interface Rewritten {
  readonly group: AppendRewriteGroup;
  readonly result: AppendFilesRewriteResult;
}

/**
 * Compacts an append table (no primary key): small files combined, deleted rows purged
 * (plan-append-rewrites.ts says which files per kind), one output file per group.
 *
 * Why no writer ever fails because of it: writers only add files and deletion vectors.
 * A deletion vector that lands on an input after the rewrite read it is carried into
 * the output at commit (the commit reads the head and insists on it, re-reading when a
 * writer moved it: only that step is redone, never the rewrite). A writer whose row ids
 * predate the compaction commits them through the replacements recorded here: each input's
 * rows went to one output at an offset, less the positions dropped (deletes-at-head.ts).
 * Only another optimizer replacing the same inputs, or a rollback that revived rows the
 * rewrite dropped, makes it re-plan (OptimizerConflict).
 */
export async function compactAppendTable(
  ctx: LakeContext, table: TableMetadata, ref: string, opts: OptimizeOptions,
): Promise<Omit<OptimizeResult, 'conflicts'>> {
  const { catalog, storage } = ctx;
  const kind = opts.kind ?? 'minor';
  const watermark = catalog.lowWatermark();
  const settings = opts.triggers ?? optimizingSettings(table);
  const head = writableBranch(catalog, table, ref).snapshotId;
  const files = catalog.visibleFiles(table.id, head);
  const logDue = appendLogDue(oldestLogFileMicros(files, (id) => catalog.getSnapshot(table.id, id)?.committedAtMicros), settings, nowMicros());
  const groups = planAppendRewrites(files, kind, settings, opts.triggers !== undefined, logDue);
  const result = {
    kind, snapshotId: undefined as bigint | undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0, changeFilesCompacted: 0, baseFilesWritten: 0,
    filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, lowWatermark: watermark,
  };
  opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: groups.length });
  if (groups.length === 0) {
    opts.onProgress?.({ phase: 'done', nodesDone: 0, nodesTotal: 0 });
    return result;
  }
  // The service's hook runs rewrites on its worker threads.
  const run = async (task: AppendFilesRewriteTask): Promise<AppendFilesRewriteResult> =>
    (opts.runNodeRewrite === undefined ? executeAppendFilesRewrite(task) : rewriteResultOf('append-files', await opts.runNodeRewrite(task)));
  const done: Rewritten[] = [];
  return withOptimizerRegistration(ctx, async (txnId) => {
    try {
      for (let i = 0; i < groups.length; i++) {
        opts.signal?.throwIfAborted();
        const g = groups[i]!;
        opts.onProgress?.({ phase: 'node', partition: g.partitionKey, nodesDone: i, nodesTotal: groups.length });
        const first = g.files[0]!;
        const r = await run({
          kind: 'append-files', storage: ctx.storageConfig, tableId: table.id, columns: table.columns,
          inputs: g.files.map((f, j) => ({ path: f.path, rowCount: f.rowCount, deleted: g.deleted[j]! })),
          placement: { partitionKey: g.partitionKey, partitionValues: first.partitionValues, node: { mask: first.nodeMask, index: first.nodeIndex } },
          seq: g.files.reduce((m, f) => (f.seq > m ? f.seq : m), 0n),
        });
        done.push({ group: g, result: r });
        g.files.forEach((f, j) => {
          if (r.keptRows[j] !== f.rowCount - g.deleted[j]!.length) throw new Error(`rewrite of ${f.path} kept ${r.keptRows[j]} rows, expected ${f.rowCount - g.deleted[j]!.length}`);
        });
        result.nodesOptimized++;
        result.filesIn += g.files.length;
        result.bytesIn += g.files.reduce((n, f) => n + f.sizeBytes, 0);
        result.rowsIn += r.rowsIn;
        if (r.file !== undefined) {
          result.filesOut++;
          result.bytesOut += r.file.sizeBytes;
          result.rowsOut += r.file.rowCount;
        }
      }
      opts.signal?.throwIfAborted();
      opts.onProgress?.({ phase: 'commit', nodesDone: groups.length, nodesTotal: groups.length });
      result.snapshotId = commitCompaction(ctx, table, ref, done, txnId, result);
      result.baseFilesWritten = result.filesOut;
      opts.onProgress?.({ phase: 'done', nodesDone: groups.length, nodesTotal: groups.length });
      return result;
    } catch (e) {
      for (const d of done) if (d.result.file !== undefined) await storage.delete(d.result.file.path).catch(() => undefined);
      throw e;
    }
  });
}

/**
 * Commits the rewritten groups at the current head: inputs and their deletion vectors
 * out, outputs in, where each input's rows went, and the deletes that reached an input
 * after it was read, moved onto its output.
 */
function commitCompaction(
  ctx: LakeContext, table: TableMetadata, ref: string, done: readonly Rewritten[], txnId: string,
  counts: { filesIn: number; rowsIn: number; rowsOut: number },
): bigint {
  const { catalog } = ctx;
  for (let attempt = 1; ; attempt++) {
    const head = writableBranch(catalog, table, ref).snapshotId;
    const visible = catalog.visibleFiles(table.id, head);
    const ids = new Set(visible.map((f) => f.fileId));
    const dvOf = deletionVectorsByTarget(visible);
    const addFiles: NewFileRecord[] = [];
    const carried: NewFileRecord[] = [];
    const removeFileIds: number[] = [];
    const requireVisible: number[] = [];
    const replacements: FileReplacement[] = [];
    for (const { group, result } of done) {
      const out = result.file;
      const outId = out === undefined ? 0 : stagedFileId(addFiles.length);
      if (out !== undefined) addFiles.push(out);
      const late = new Set<number>();
      let offset = 0;
      let dvSeq = 0n;
      group.files.forEach((f, j) => {
        // Another optimizer replaced it since this one read it: re-plan.
        if (!ids.has(f.fileId)) throw new OptimizerConflict();
        removeFileIds.push(f.fileId);
        requireVisible.push(f.fileId);
        const dropped = group.deleted[j]!;
        const dv = dvOf.get(f.fileId);
        const now = new Set(dv?.dvPositions ?? []);
        // A rollback since the read revived rows this rewrite dropped.
        for (const p of dropped) if (!now.has(p)) throw new OptimizerConflict();
        if (dv !== undefined) {
          removeFileIds.push(dv.fileId);
          if (dv.seq > dvSeq) dvSeq = dv.seq;
        }
        const rep: FileReplacement = { fileId: f.fileId, outputFileId: outId, outputOffset: offset, dropped };
        replacements.push(rep);
        if (now.size > dropped.length) {
          const had = new Set(dropped);
          for (const p of now) if (!had.has(p)) late.add(replacedPosition(rep, p)!);
        }
        offset += result.keptRows[j]!;
      });
      if (late.size > 0 && out !== undefined) {
        const positions = Uint32Array.from([...late].sort((a, b) => a - b));
        carried.push({
          store: 'dv', path: '', partitionKey: out.partitionKey, partitionValues: out.partitionValues, nodeMask: out.nodeMask, nodeIndex: out.nodeIndex,
          rowCount: positions.length, sizeBytes: positions.byteLength, seq: dvSeq, firstOffset: 0, stats: {},
          dvTarget: outId, dvPositions: positions, rowGroups: undefined, keyBitmap: undefined,
        });
      }
    }
    try {
      const [snap] = catalog.commit([{
        tableId: table.id, branch: ref, operation: 'optimize', schemaId: catalog.getTableById(table.id)?.schemaId ?? table.schemaId,
        summary: {
          'files-rewritten': String(counts.filesIn), 'files-written': String(addFiles.length), 'rows-dropped': String(counts.rowsIn - counts.rowsOut),
          'deletes-carried': String(carried.reduce((n, f) => n + f.rowCount, 0)),
        },
        // Outputs first: the replacements and carried deletion vectors name them by staged index.
        addFiles: [...addFiles, ...carried], removeFileIds, requireVisible, requireVisibleSince: head, replacements, expectHead: head,
      }], txnId, nowMicros());
      return snap!.id;
    } catch (e) {
      if (isFloeError(e) && e.detail === HEAD_MOVED && attempt < MAX_COMMIT_ATTEMPTS) continue;
      throw e;
    }
  }
}
