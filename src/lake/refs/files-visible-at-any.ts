/** A snapshot as the tree walk needs it: its id and its parent's. */
export interface SnapshotLink { readonly id: bigint; readonly parentId: bigint | undefined }

/**
 * The files visible at one or more of the `live` snapshots — what expiry must keep. A file
 * is visible at S when it was added at an ancestor-or-self of S and no ancestor-or-self
 * of S removed it (sqlite-catalog.ts). One depth-first walk of the snapshot tree carries
 * the visible set down each line, applying each snapshot's additions and removals on the
 * way in and undoing them on the way out; at a live snapshot, the visible files not yet
 * kept are kept. So the cost is the snapshots plus the file and removal rows, once,
 * where checking each live snapshot's ancestry against every file cost
 * O(live snapshots × (ancestors + files)): 20 s at 3,000 snapshots, a stall of every
 * commit of the process (bench/expire-history-cost.ts).
 * A snapshot whose parent is not among `snapshots` starts a line, as the catalog's
 * ancestor walk stops there.
 */
export function filesVisibleAtAny(
  snapshots: readonly SnapshotLink[], files: readonly { fileId: number; addedIn: bigint }[],
  removals: readonly { fileId: number; snapshotId: bigint }[], live: ReadonlySet<bigint>,
): Set<number> {
  const known = new Set(snapshots.map((s) => s.id));
  const children = new Map<bigint, bigint[]>();
  const roots: bigint[] = [];
  for (const s of snapshots) {
    if (s.parentId === undefined || !known.has(s.parentId)) roots.push(s.id);
    else push(children, s.parentId, s.id);
  }
  const addedAt = new Map<bigint, number[]>();
  for (const f of files) push(addedAt, f.addedIn, f.fileId);
  const removedAt = new Map<bigint, number[]>();
  for (const r of removals) push(removedAt, r.snapshotId, r.fileId);

  const needed = new Set<number>();
  const onLine = new Set<number>(); // added on the current line
  const removedOnLine = new Map<number, number>(); // removals of a file on the current line
  const pending = new Set<number>(); // visible on the current line, not yet needed
  const enter = (s: bigint): void => {
    for (const f of addedAt.get(s) ?? []) {
      onLine.add(f);
      if (!removedOnLine.has(f) && !needed.has(f)) pending.add(f);
    }
    for (const f of removedAt.get(s) ?? []) {
      removedOnLine.set(f, (removedOnLine.get(f) ?? 0) + 1);
      pending.delete(f);
    }
    if (live.has(s)) {
      for (const f of pending) needed.add(f);
      pending.clear();
    }
  };
  const leave = (s: bigint): void => {
    for (const f of removedAt.get(s) ?? []) {
      const n = removedOnLine.get(f)! - 1;
      if (n > 0) removedOnLine.set(f, n);
      else {
        removedOnLine.delete(f);
        if (onLine.has(f) && !needed.has(f)) pending.add(f);
      }
    }
    for (const f of addedAt.get(s) ?? []) {
      onLine.delete(f);
      pending.delete(f);
    }
  };
  // Iterative: a line can be many thousands of snapshots deep.
  const stack: { id: bigint; entered: boolean }[] = roots.map((id) => ({ id, entered: false }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.entered) {
      stack.pop();
      leave(top.id);
      continue;
    }
    top.entered = true;
    enter(top.id);
    for (const c of children.get(top.id) ?? []) stack.push({ id: c, entered: false });
  }
  return needed;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [v]);
  else l.push(v);
}
