/**
 * The log crash test's workload and row model, shared by the writer child and the checker.
 * Client c's commit i is one transaction: an upsert of rows keyed under (c, i) plus the
 * client's shared key (so the last commit's value wins), and every fifth commit a delete
 * of commit i - 5's keys. Every ninth commit is "large": enough rows to pass the log's
 * maxTransactionBytes, so it writes Parquet change files and commits straight to the catalog.
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
