import type { FileRecord } from './catalog.js';

/** What the memo reads from the catalog (sqlite-catalog.ts supplies it). */
export interface VisibleFilesSource {
  /** The table's file epoch: moves whenever a file row of it changes other than by a new snapshot (file_epochs). */
  fileEpoch(tableId: number): number;
  /** The snapshot's parent; undefined for a root; null when there is no such snapshot. */
  parentOf(tableId: number, snapshotId: bigint): bigint | undefined | null;
  /** Files whose added_in is this snapshot, by file id. */
  addedIn(tableId: number, snapshotId: bigint): readonly FileRecord[];
  /** Ids of the files this snapshot removed. */
  removedIn(tableId: number, snapshotId: bigint): readonly number[];
  /**
   * What the commits after `ancestor` up to `snapshotId` did: the files they added, ordered by
   * (added_in, file_id), and the ids they removed; undefined when `ancestor` is not on
   * `snapshotId`'s line. One read however many commits: cheaper than the ancestor walk,
   * which reads the whole history.
   */
  since(tableId: number, snapshotId: bigint, ancestor: bigint): { readonly added: readonly FileRecord[]; readonly removed: readonly number[] } | undefined;
  /** The visible set by the plain query (the ancestor walk), ordered by (added_in, file_id). */
  query(tableId: number, snapshotId: bigint): readonly FileRecord[];
  /** The logged swaps that moved the table's epoch past `after` up to `upTo`, in epoch order (possibly with gaps). */
  swaps(tableId: number, after: number, upTo: number): readonly FileSwap[];
}

/**
 * Files swapped in place (tiering, change compaction): `removed` went and `added` came, with
 * no new snapshot; nothing had removed any of them. `anchor`, one of `removed`, was added at
 * the same snapshot as `added`, so `added` is visible exactly where `anchor` was.
 */
export interface FileSwap {
  readonly epoch: number;
  readonly removed: readonly number[];
  readonly anchor: number;
  /** Undefined when its row is gone (swapped again since). */
  readonly added: FileRecord | undefined;
}

/** Sets kept per table: the heads of a few branches plus the snapshots just behind them. */
const SETS_PER_TABLE = 8;
/** Tables kept; past it the memo starts over (it is only a cache). */
const MAX_TABLES = 256;
/** A snapshot this many commits past the nearest kept set is derived in one read of the commits between (`since`). */
const MAX_WALK = 64;

interface TableMemo { epoch: number; sets: Map<string, readonly FileRecord[]> }

/**
 * The visible files at a snapshot, derived from its parent's: a file is visible at S when
 * it was added at an ancestor-or-self of S and no ancestor-or-self of S removed it, so
 * visible(S) = (visible(parent) + added at S) − removed at S. Snapshots are immutable once
 * committed, so a set stays right while the database changes around it (new commits,
 * branches, rollbacks and fast-forwards only add snapshots or move refs). What rewrites
 * file rows without a new snapshot — expiry's squash and file deletion,
 * `replaceFilesInPlace`, new statistics, dropping the table — moves the table's file epoch,
 * in the database, so this process and every other drop their sets for it; but an in-place
 * swap is logged (FileSwap), and sets behind by swaps only are patched instead.
 *
 * Why: the plain query walks every retained snapshot of the line (thousands on a
 * streaming table between expiries) and re-parses every visible file row, and it ran
 * after every commit, since any change clears the catalog's read cache: 8 ms of a 14 ms
 * one-row commit plus point read at 1,000–3,000 commits of history (bench/README.md).
 * Derived, a commit's next read costs two indexed lookups plus a pass over the live files.
 *
 * Order matches the query's, (added_in, file_id): a child's snapshot id is larger than
 * every ancestor's, so its added files follow its parent's set. Only sets read outside a
 * write transaction may be kept (the caller's rule: inside one, rows may be rolled back).
 */
export class VisibleFilesMemo {
  readonly #tables = new Map<number, TableMemo>();
  readonly #source: VisibleFilesSource;

  constructor(source: VisibleFilesSource) {
    this.#source = source;
  }

  visibleFiles(tableId: number, snapshotId: bigint): readonly FileRecord[] {
    const memo = this.#tableMemo(tableId);
    const key = String(snapshotId);
    const hit = memo.sets.get(key);
    if (hit !== undefined) return this.#keep(memo, key, hit);
    // Walk back to the nearest snapshot whose set is kept, then forward applying each commit.
    const path: bigint[] = [];
    let base: readonly FileRecord[] | undefined;
    for (let cur: bigint = snapshotId; path.length < MAX_WALK;) {
      const parent = this.#source.parentOf(tableId, cur);
      // No such snapshot (yet: an id a rolled-back commit took is handed out again): nothing is kept for it.
      if (parent === null && cur === snapshotId) return this.#source.query(tableId, snapshotId);
      if (parent === null) break;
      path.push(cur);
      if (parent === undefined) { base = []; break; }
      base = memo.sets.get(String(parent));
      if (base !== undefined) break;
      cur = parent;
    }
    if (base === undefined) return this.#keep(memo, key, this.#fromNearestKept(tableId, memo, snapshotId) ?? this.#source.query(tableId, snapshotId));
    let files = base;
    for (let i = path.length - 1; i >= 0; i--) files = this.#child(tableId, files, path[i]!);
    return this.#keep(memo, key, files);
  }

  /**
   * The set at `snapshotId` from the newest kept set below it, when that one is on its line,
   * in one read of the commits between: a reader that comes back after a burst of commits
   * (the optimizer's tick, a query) pays for the burst, not for the history kept.
   */
  #fromNearestKept(tableId: number, memo: TableMemo, snapshotId: bigint): readonly FileRecord[] | undefined {
    let nearest: bigint | undefined;
    for (const k of memo.sets.keys()) {
      const id = BigInt(k);
      if (id < snapshotId && (nearest === undefined || id > nearest)) nearest = id;
    }
    if (nearest === undefined) return undefined;
    const span = this.#source.since(tableId, snapshotId, nearest);
    if (span === undefined) return undefined;
    return afterCommits(memo.sets.get(String(nearest))!, span.added, span.removed);
  }

  /** The set at `snapshotId` from its parent's: a file added and removed at the same snapshot (after a squash) is not visible. */
  #child(tableId: number, parent: readonly FileRecord[], snapshotId: bigint): readonly FileRecord[] {
    return afterCommits(parent, this.#source.addedIn(tableId, snapshotId), this.#source.removedIn(tableId, snapshotId));
  }

  #tableMemo(tableId: number): TableMemo {
    const epoch = this.#source.fileEpoch(tableId);
    let memo = this.#tables.get(tableId);
    if (memo !== undefined && memo.epoch !== epoch && this.#applySwaps(tableId, memo, epoch)) return memo;
    if (memo === undefined || memo.epoch !== epoch) {
      if (memo === undefined && this.#tables.size >= MAX_TABLES) this.#tables.clear();
      memo = { epoch, sets: new Map() };
      this.#tables.set(tableId, memo);
    }
    return memo;
  }

  /**
   * Brings the kept sets from their epoch to `epoch` when every step between is a logged
   * swap: a set that held the swapped files loses them and, where the anchor was, gains the
   * new file in (added_in, file_id) order. False when a step is not a swap (expiry, stats,
   * a drop) or is no longer known: the caller starts over.
   */
  #applySwaps(tableId: number, memo: TableMemo, epoch: number): boolean {
    if (epoch < memo.epoch) return false;
    const swaps = this.#source.swaps(tableId, memo.epoch, epoch);
    if (swaps.length !== epoch - memo.epoch || swaps.some((w, i) => w.epoch !== memo.epoch + i + 1 || w.added === undefined)) return false;
    for (const [key, files] of memo.sets) {
      let set = files;
      for (const w of swaps) set = swapped(set, w);
      memo.sets.set(key, set);
    }
    memo.epoch = epoch;
    return true;
  }

  /** Keeps `files` as the set at `key`, newest use last; the least recently used goes past the bound. */
  #keep(memo: TableMemo, key: string, files: readonly FileRecord[]): readonly FileRecord[] {
    memo.sets.delete(key);
    memo.sets.set(key, files);
    if (memo.sets.size > SETS_PER_TABLE) memo.sets.delete(memo.sets.keys().next().value!);
    return files;
  }
}

/**
 * A visible set after commits that added `added` (newer than every file of `base`, in
 * (added_in, file_id) order) and removed `removed`: a file added and removed among them is
 * not visible.
 */
function afterCommits(base: readonly FileRecord[], added: readonly FileRecord[], removed: readonly number[]): readonly FileRecord[] {
  if (removed.length === 0) return added.length === 0 ? base : [...base, ...added];
  const gone = new Set(removed);
  const out: FileRecord[] = [];
  for (const f of base) if (!gone.has(f.fileId)) out.push(f);
  for (const f of added) if (!gone.has(f.fileId)) out.push(f);
  return out;
}

/** A visible set after a swap (FileSwap): unchanged when it held none of the swapped files. */
function swapped(files: readonly FileRecord[], w: FileSwap): readonly FileRecord[] {
  const gone = new Set(w.removed);
  if (!files.some((f) => gone.has(f.fileId))) return files;
  const added = w.added!;
  const visible = files.some((f) => f.fileId === w.anchor);
  const out: FileRecord[] = [];
  let placed = !visible;
  for (const f of files) {
    if (gone.has(f.fileId)) continue;
    if (!placed && (f.addedIn > added.addedIn || (f.addedIn === added.addedIn && f.fileId > added.fileId))) { out.push(added); placed = true; }
    out.push(f);
  }
  if (!placed) out.push(added);
  return out;
}
