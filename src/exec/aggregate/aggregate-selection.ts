/** The rows an aggregate steps: those passing its FILTER and, for strict aggregates, without a NULL argument (sel undefined = all n rows). */
export interface AggregateSelection {
  readonly sel: Int32Array | undefined;
  readonly count: number;
}

/** The selection for arguments given as values: `strictArgs` are the columns whose NULLs skip a row. */
export function selection(n: number, filter: readonly unknown[] | undefined, strictArgs: readonly (readonly unknown[])[]): AggregateSelection {
  let firstDrop = -1;
  for (let i = 0; i < n && firstDrop < 0; i++) {
    if (filter && filter[i] !== true) { firstDrop = i; break; }
    for (let c = 0; c < strictArgs.length; c++) if (strictArgs[c]![i] === null) { firstDrop = i; break; }
  }
  if (firstDrop < 0) return { sel: undefined, count: n };
  const sel = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < firstDrop; i++) sel[count++] = i;
  for (let i = firstDrop; i < n; i++) {
    if (filter && filter[i] !== true) continue;
    let keep = true;
    for (let c = 0; c < strictArgs.length; c++) if (strictArgs[c]![i] === null) { keep = false; break; }
    if (keep) sel[count++] = i;
  }
  return { sel, count };
}

/** The selection for one argument given by its validity (ScaledVector.valid: 0 = NULL). */
export function validSelection(n: number, filter: readonly unknown[] | undefined, valid: Uint8Array | undefined): AggregateSelection {
  if (filter === undefined && valid === undefined) return { sel: undefined, count: n };
  const sel = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (filter !== undefined && filter[i] !== true) continue;
    if (valid !== undefined && valid[i] === 0) continue;
    sel[count++] = i;
  }
  return count === n ? { sel: undefined, count } : { sel, count };
}
