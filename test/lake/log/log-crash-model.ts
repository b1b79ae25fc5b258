/**
 * The log crash test's workload and row model, shared by the writer child and the checker.
 * Client c's commit i is one transaction: an upsert of rows keyed under (c, i) plus the
 * client's shared key (so the last commit's value wins), and every fifth commit a delete
 * of commit i - 5's keys. The same transaction appends rows to the client's append table
 * (no key), and every seventh commit first deletes, by row id, the rows commit i - 7
 * appended there. Every ninth commit is "large": enough rows to pass the log's
 * maxTransactionBytes, so it writes Parquet files and commits straight to the catalog.
 */
export const CLIENTS = 4;
/** The writer's log.maxTransactionBytes: small, so a 40-row commit passes it. */
export const MAX_LOGGED_BYTES = 4096;
const LARGE_ROWS = 40;
const PAD = 'x'.repeat(120);

export function isLarge(i: number): boolean {
  return i % 9 === 4;
}

function rowKey(c: number, i: number, j: number): bigint {
  return BigInt(c + 1) * 1_000_000_000n + BigInt(i) * 100n + BigInt(j);
}

export function sharedKey(c: number): bigint {
  return BigInt(c);
}

/** The rows commit (c, i) upserts: [keys, values]. */
export function commitRows(c: number, i: number): [bigint[], string[]] {
  const n = isLarge(i) ? LARGE_ROWS : 1 + (i % 3);
  const keys: bigint[] = [sharedKey(c)];
  const values: string[] = [`s${c}.${i}`];
  for (let j = 0; j < n; j++) {
    keys.push(rowKey(c, i, j));
    values.push(isLarge(i) ? `b${c}.${i}.${j}${PAD}` : `u${c}.${i}.${j}`);
  }
  return [keys, values];
}

/** The keys commit (c, i) deletes (some never existed: deleting them is a no-op). */
export function commitDeletes(c: number, i: number): bigint[] {
  if (i % 5 !== 0 || i < 5) return [];
  return [rowKey(c, i - 5, 0), rowKey(c, i - 5, 1)];
}

/** The first key commit (c, i) writes that no other commit writes: tells whether it is there. */
export function markerKey(c: number, i: number): bigint {
  // Only commit i + 5 deletes it, and that is never sent while i is in flight.
  return rowKey(c, i, 0);
}

/** Expected table once client c committed 0..last[c] (inclusive; -1 for none). */
export function expectedRows(last: readonly number[]): Map<bigint, string> {
  const rows = new Map<bigint, string>();
  last.forEach((l, c) => {
    for (let i = 0; i <= l; i++) {
      const [keys, values] = commitRows(c, i);
      keys.forEach((k, j) => rows.set(k, values[j]!));
      for (const k of commitDeletes(c, i)) rows.delete(k);
    }
  });
  return rows;
}

/** Client c's append table: one per client, so its row-id deletes never race another client's commit. */
export function appendTableName(c: number): string {
  return `logappend${c}`;
}

/** The rows commit (c, i) appends to its client's append table: [ids, values]. */
export function appendRows(c: number, i: number): [bigint[], string[]] {
  const n = isLarge(i) ? LARGE_ROWS : 1 + (i % 2);
  const ids: bigint[] = [];
  const values: string[] = [];
  for (let j = 0; j < n; j++) {
    ids.push(rowKey(c, i, j));
    values.push(isLarge(i) ? `a${c}.${i}.${j}${PAD}` : `a${c}.${i}.${j}`);
  }
  return [ids, values];
}

/** The commit whose appended rows commit i deletes by row id, if any. */
export function appendDeletedCommit(i: number): number | undefined {
  return i >= 7 && i % 7 === 3 ? i - 7 : undefined;
}

/** The ids commit (c, i) appends lie in [from, to). */
export function appendIdRange(c: number, i: number): [bigint, bigint] {
  return [rowKey(c, i, 0), rowKey(c, i + 1, 0)];
}

/** Expected append table of client c once it committed 0..last (inclusive). */
export function expectedAppendRows(c: number, last: number): Map<bigint, string> {
  const rows = new Map<bigint, string>();
  for (let i = 0; i <= last; i++) {
    const [ids, values] = appendRows(c, i);
    ids.forEach((id, j) => rows.set(id, values[j]!));
    const victim = appendDeletedCommit(i);
    if (victim !== undefined) for (const id of appendRows(c, victim)[0]) rows.delete(id);
  }
  return rows;
}
