import type { RecordBatch } from 'apache-arrow';
import type { RowPicker } from '../format/data-file-reader.js';

/**
 * `pick` that also drops the rows a file's deletion vector names. The decoder calls a
 * picker once per decoded batch, in file order, before it copies anything; so the
 * running row count gives each row's place among the decoded rows, and `groups`
 * (ascending; undefined: the whole file) with the file's `groupRows` its position in the
 * file. The sorted deletions are walked alongside, one pass in all. `decoded()` says how
 * many rows the picker saw, for the caller to check against what it asked for.
 */
export function skippingDeleted(
  pick: RowPicker, deleted: readonly number[], groups: readonly number[] | undefined, groupRows: readonly number[] | undefined,
): RowPicker & { decoded(): number } {
  // deletion vectors are stored ascending: sorted only when they are not
  const gone = Uint32Array.from(deleted);
  if (!isAscending(gone)) gone.sort();
  const position = decodedPositions(groups, groupRows);
  let start = 0;
  let d = 0;
  const picker = (batch: RecordBatch): Int32Array | undefined => {
    const n = batch.numRows;
    const first = start;
    start += n;
    const rows = pick(batch);
    if (n === 0) return rows;
    const at = (i: number): number => (position === undefined ? first + i : position[first + i]!);
    while (d < gone.length && gone[d]! < at(0)) d++;
    if (d >= gone.length || gone[d]! > at(n - 1)) return rows;
    const count = rows?.length ?? n;
    const keep = new Int32Array(count);
    let k = 0;
    if (position === undefined && rows === undefined) {
      // the whole file decoded, every row picked: positions are first + i (the common case, tight)
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
    if (position === undefined) {
      for (let j = 0; j < count; j++) {
        const i = rows![j]!;
        const p = first + i;
        while (d < gone.length && gone[d]! < p) d++;
        if (d < gone.length && gone[d] === p) continue;
        keep[k++] = i;
      }
      return keep.subarray(0, k);
    }
    for (let j = 0; j < count; j++) {
      const i = rows === undefined ? j : rows[j]!;
      const p = position[first + i]!;
      while (d < gone.length && gone[d]! < p) d++;
      if (d < gone.length && gone[d] === p) continue;
      keep[k++] = i;
    }
    return keep.subarray(0, k);
  };
  return Object.assign(picker, { decoded: () => start });
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

function isAscending(a: Uint32Array): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return false;
  return true;
}
