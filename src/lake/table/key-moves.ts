/**
 * An UPDATE that changes a row's key is stored as `-D` of the old key and `+I` of the new
 * (the inserts last, for the end-of-statement uniqueness check), and routing deals the two
 * rows into their own (partition, node) files, so the change rows alone cannot say which
 * `-D` and `+I` were one row's update. A keyed table's commit records the pairs in its
 * snapshot summary under KEY_MOVES_SUMMARY: the two rows' offsets in the transaction, as
 * runs `d:i:n` (the pairs (d, i), (d+1, i+1), … n of them) separated by commas. A bulk key
 * change whose rows stay in one file is one run.
 */
export const KEY_MOVES_SUMMARY = 'key-moves';

/**
 * At most this many runs are recorded: past it (a large key change dealt over many nodes or
 * partitions) the summary would grow with the statement, and the commit records none: its
 * moves read as the deletes and inserts they are stored as.
 */
export const MAX_KEY_MOVE_RUNS = 1000;

/** The summary value for pairs given flat as [delete offset, insert offset, …]; undefined when there are none or too many runs. */
export function encodeKeyMoves(pairs: readonly number[]): string | undefined {
  const runs: string[] = [];
  let d = -1;
  let i = -1;
  let n = 0;
  for (let p = 0; p < pairs.length; p += 2) {
    const nd = pairs[p]!;
    const ni = pairs[p + 1]!;
    if (n > 0 && nd === d + n && ni === i + n) { n++; continue; }
    if (n > 0) runs.push(`${d}:${i}:${n}`);
    if (runs.length >= MAX_KEY_MOVE_RUNS) return undefined;
    d = nd;
    i = ni;
    n = 1;
  }
  if (n > 0) runs.push(`${d}:${i}:${n}`);
  return runs.length === 0 ? undefined : runs.join(',');
}

/** The recorded pairs of a commit's summary: insert offset by delete offset (empty when none were recorded). */
export function decodeKeyMoves(summary: Readonly<Record<string, string>>): Map<number, number> {
  const out = new Map<number, number>();
  const text = summary[KEY_MOVES_SUMMARY];
  if (text === undefined || text === '') return out;
  for (const run of text.split(',')) {
    const [d, i, n] = run.split(':').map(Number) as [number, number, number];
    for (let k = 0; k < n; k++) out.set(d + k, i + k);
  }
  return out;
}
