/**
 * A refresh's snapshot positions as statement parameters, numbered by table rather than by
 * where the statement first names them: with base table ids in ascending order, table i's
 * `from` is $(2i+1) and its `to` $(2i+2). A refresh's text then depends on which tables
 * changed, never on the snapshots, so the next refresh of the same shape reuses its bound
 * and planned statement with new values.
 */
export class PositionParameters {
  readonly #slots: ReadonlyMap<number, number>;

  constructor(tableIds: Iterable<number>) {
    const ids = [...new Set(tableIds)].sort((a, b) => a - b);
    this.#slots = new Map(ids.map((id, i) => [id, i]));
  }

  /** How many parameters a statement over these tables declares (two a table, used or not). */
  get count(): number {
    return 2 * this.#slots.size;
  }

  /** The parameter number (1-based) of table `tableId`'s position on `side`. */
  number(side: 'from' | 'to', tableId: number): number {
    const slot = this.#slots.get(tableId);
    if (slot === undefined) throw new Error(`no position parameter for table ${tableId}`);
    return 2 * slot + (side === 'from' ? 1 : 2);
  }

  /** The parameters' values: each table's snapshot ids (NULL where it has no `from`). */
  values(from: ReadonlyMap<number, string>, to: ReadonlyMap<number, string>): (bigint | null)[] {
    const out: (bigint | null)[] = new Array(this.count).fill(null);
    for (const [id, slot] of this.#slots) {
      const f = from.get(id);
      const t = to.get(id);
      out[2 * slot] = f === undefined ? null : BigInt(f);
      out[2 * slot + 1] = t === undefined ? null : BigInt(t);
    }
    return out;
  }
}
