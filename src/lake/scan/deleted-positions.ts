import type { RecordBatch } from 'apache-arrow';
import type { RowPicker } from '../format/data-file-reader.js';

/**
 * `pick` that also drops the rows a file's deletion vector names. The decoder calls a
 * picker once per decoded batch, in file order, before it copies anything; so the
 * running row count gives each row's place among the decoded rows. The deleted
 * positions are turned into such places once, through `groups` (ascending; undefined:
 * the whole file) and the file's `groupRows`, and walked alongside, one pass in all.
 * `decoded()` says how many rows the picker saw, for the caller to check against what it asked for.
 */
export function skippingDeleted(
  pick: RowPicker, deleted: ArrayLike<number>, groups: readonly number[] | undefined, groupRows: readonly number[] | undefined,
): RowPicker & { decoded(): number } {
  const gone = decodedPlaces(deleted, groups, groupRows);
  let start = 0;
  let d = 0;
  const picker = (batch: RecordBatch): Int32Array | undefined => {
    const n = batch.numRows;
    const first = start;
    start += n;
    const rows = pick(batch);
    if (n === 0) return rows;
    while (d < gone.length && gone[d]! < first) d++;
    if (d >= gone.length || gone[d]! >= first + n) return rows;
    const count = rows?.length ?? n;
    const keep = new Int32Array(count);
    let k = 0;
    if (rows === undefined) {
      // every row picked (the common case, tight)
      let next = gone[d]! - first;
      for (let i = 0; i < n; i++) {
        if (i === next) {
          d++;
          next = d < gone.length ? gone[d]! - first : n;
          continue;
        }
        keep[k++] = i;
      }
      return keep.subarray(0, k);
    }
    for (let j = 0; j < count; j++) {
      const i = rows[j]!;
      const p = first + i;
      while (d < gone.length && gone[d]! < p) d++;
      if (d < gone.length && gone[d] === p) continue;
      keep[k++] = i;
    }
    return keep.subarray(0, k);
  };
  return Object.assign(picker, { decoded: () => start });
}

/**
 * Deleted file positions as places among the decoded rows (the chosen row groups back to
 * back), ascending; positions in row groups not decoded are left out.
 */
function decodedPlaces(deleted: ArrayLike<number>, groups: readonly number[] | undefined, groupRows: readonly number[] | undefined): Uint32Array {
  // deletion vectors are stored ascending: sorted only when they are not
  const sorted = Uint32Array.from(deleted);
  if (!isAscending(sorted)) sorted.sort();
  if (groups === undefined) return sorted;
  if (groupRows === undefined) throw new Error('the positions of a file read in part need its row group sizes');
  const fileStart: number[] = [];
  let acc = 0;
  for (const n of groupRows) { fileStart.push(acc); acc += n; }
  const out = new Uint32Array(sorted.length);
  let k = 0;
  let d = 0;
  let place = 0;
  for (const g of groups) {
    const lo = fileStart[g]!;
    const hi = lo + groupRows[g]!;
    while (d < sorted.length && sorted[d]! < lo) d++;
    while (d < sorted.length && sorted[d]! < hi) out[k++] = place + sorted[d++]! - lo;
    place += groupRows[g]!;
  }
  return out.subarray(0, k);
}

/** File position of each decoded row when only `groups` (ascending) were decoded; undefined when every row was. */
export function decodedPositions(groups: readonly number[] | undefined, groupRows: readonly number[] | undefined): Int32Array | undefined {
  if (groups === undefined) return undefined;
  if (groupRows === undefined) throw new Error('the positions of a file read in part need its row group sizes');
  const starts: number[] = [];
  let acc = 0;
  for (const n of groupRows) { starts.push(acc); acc += n; }
  const out = new Int32Array(groups.reduce((n, g) => n + (groupRows[g] ?? 0), 0));
  let k = 0;
  for (const g of groups) for (let i = 0; i < groupRows[g]!; i++) out[k++] = starts[g]! + i;
  return out;
}

/** Whether positions are in ascending order (deletion vectors are stored so). */
export function isAscending(a: ArrayLike<number>): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return false;
  return true;
}
