import { createHash } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import type { ScanTask } from './scan-types.js';

/**
 * What a merge-on-read task's merge decided, as positions in its files: per base file the
 * rows that are not live (a change overrode them, or they lie outside the task's node),
 * per change file (the task's order) the rows that won their key and are live. Both
 * ascending, in the file's own row numbering.
 */
export interface MergePositions {
  readonly baseDropped: ReadonlyMap<string, Int32Array>;
  readonly changeWinners: readonly Int32Array[];
}

/**
 * The merge positions of tasks scanned before, kept per thread and shared between threads.
 *
 * A task's merge is a function of its files alone: data files are immutable (a rewrite
 * writes a new path, a log locator names a fixed byte range), so the same files merge the
 * same way at every scan. Dashboards scan the same pending changes again and again, and
 * each paid the merge: the base rows' key columns decoded and hashed, the change keys
 * encoded and probed, several times the time of the scan itself. With the positions kept,
 * the next scan decodes only the columns it returns, drops the base rows by position as a
 * deletion vector does, and takes the change rows that won.
 *
 * The key names every input that can change a decision (mergeMemoKey). The first time the
 * planner meets a key the task merges as it always did; the second time (plannedBefore)
 * its worker runs the merge over the key columns for the positions, keeps them and
 * broadcasts them (SharedArrayBuffer-backed, so every thread holds one copy). The planner,
 * on the gateway's thread, finds them by the next task's key and gives them to the task
 * (ScanTask.mergePositions), whichever worker runs it: a worker waiting for tasks does not
 * read its messages first, so a broadcast cannot be relied on to reach the next worker in
 * time; it reliably reaches the planner. Each thread bounds what it keeps by bytes and
 * evicts the least recently used first.
 */
export const MERGE_POSITION_MEMO_BYTES = 64 * 1024 * 1024;

interface Entry {
  readonly positions: MergePositions;
  readonly bytes: number;
}

interface Shared {
  readonly key: string;
  readonly baseDropped: readonly (readonly [string, Int32Array])[];
  readonly changeWinners: readonly Int32Array[];
}

/** Insertion order is recency: a hit moves its entry to the end. */
const entries = new Map<string, Entry>();
/** Keys the planner has met, the most recent PLANNED_KEYS of them. */
const planned = new Set<string>();
const PLANNED_KEYS = 4096;
let cachedBytes = 0;
let channel: BroadcastChannel | undefined;

/** The task's memo key, or undefined when its merge is not kept (ScanTask.memoizeMerge). */
export function mergeMemoKey(task: ScanTask): string | undefined {
  if (task.memoizeMerge !== true) return undefined;
  const keys = task.keyColumns.map((k) => {
    const c = task.columns.find((x) => x.name === k)!;
    return [c.fieldId, c.type];
  });
  const base = task.baseFiles.map((f) => [f.path, f.seq, f.filterByHash, f.rowGroups ?? null]);
  const changes = task.changeFiles.map((f) => [f.path, f.seq, f.firstOffset, f.filterByHash, f.tiered === true, f.keepSnapshots ?? null]);
  const text = JSON.stringify([task.tableId, task.node.mask, task.node.index, keys, base, changes], (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
  // A node with thousands of pending log files names them all: the key kept is their digest.
  return createHash('sha256').update(text).digest('base64');
}

/** Whether this thread keeps any positions: a scan that may only look them up skips the key's digest when none are. */
export function keepsMergePositions(): boolean {
  return entries.size > 0;
}

export function rememberedMergePositions(key: string): MergePositions | undefined {
  const hit = entries.get(key);
  if (hit === undefined) return undefined;
  entries.delete(key);
  entries.set(key, hit);
  return hit.positions;
}

/**
 * Whether the planner met this key before (and notes it). Positions are kept only for
 * files planned a second time: finding them costs a merge over the key columns and a
 * second read, which a change set read once (a stream commits between every two scans)
 * would pay for nothing.
 */
export function plannedBefore(key: string): boolean {
  if (planned.delete(key)) {
    planned.add(key);
    return true;
  }
  planned.add(key);
  if (planned.size > PLANNED_KEYS) planned.delete(planned.values().next().value!);
  return false;
}

/** Keeps a task's merge positions here and offers them to the process's other threads. */
export function rememberMergePositions(key: string, positions: MergePositions): void {
  const shared: Shared = {
    key,
    baseDropped: [...positions.baseDropped].map(([path, rows]) => [path, sharedCopy(rows)] as const),
    changeWinners: positions.changeWinners.map(sharedCopy),
  };
  if (!keep(shared)) return;
  memoChannel().postMessage(shared);
}

/** What this thread keeps, for tests and diagnostics. */
export function mergePositionMemoStats(): { entries: number; bytes: number } {
  return { entries: entries.size, bytes: cachedBytes };
}

/** Forgets this thread's entries and the keys it has planned (tests). */
export function clearMergePositionMemo(): void {
  entries.clear();
  planned.clear();
  cachedBytes = 0;
}

function keep(s: Shared): boolean {
  const bytes = s.baseDropped.reduce((n, [path, rows]) => n + path.length * 2 + rows.byteLength, 0) + s.changeWinners.reduce((n, rows) => n + rows.byteLength, 0);
  if (bytes > MERGE_POSITION_MEMO_BYTES / 4) return false;
  const old = entries.get(s.key);
  if (old !== undefined) {
    entries.delete(s.key);
    cachedBytes -= old.bytes;
  }
  entries.set(s.key, { positions: { baseDropped: new Map(s.baseDropped), changeWinners: s.changeWinners }, bytes });
  cachedBytes += bytes;
  for (const [k, e] of entries) {
    if (cachedBytes <= MERGE_POSITION_MEMO_BYTES) break;
    entries.delete(k);
    cachedBytes -= e.bytes;
  }
  return true;
}

function sharedCopy(rows: Int32Array): Int32Array {
  if (rows.buffer instanceof SharedArrayBuffer) return rows;
  const out = new Int32Array(new SharedArrayBuffer(rows.byteLength));
  out.set(rows);
  return out;
}

/** The process-wide channel, opened on first use; it never keeps a thread alive. */
function memoChannel(): BroadcastChannel {
  if (channel === undefined) {
    channel = new BroadcastChannel('floe-merge-positions');
    channel.unref();
    channel.onmessage = (event: unknown) => {
      const data = (event as { data?: Shared }).data;
      if (data !== undefined && typeof data.key === 'string') keep(data);
    };
  }
  return channel;
}

// A thread listens from the moment it loads the scan code: a broadcast reaches only the
// threads already listening (a pool worker loads it with its first task).
memoChannel();
