import { setImmediate } from 'node:timers/promises';
import { valueKey, vectorToValues } from '../exec/index.js';
import { keysUnchangedBetween, type TableMetadata, type Warehouse } from '../lake/index.js';
import type { NetChangeCheck } from '../sql/index.js';

/** The change types of after-images; every other change row is a before-image. */
const AFTER_IMAGES = new Set(['+I', '+U']);

/** How long the count runs before letting other work in, as execution's slices do (a bulk change set is millions of rows). */
const SLICE_MS = 5;

/**
 * Whether a change set nets to nothing (NetChangeCheck): its change rows read and counted
 * here, by their values in the checked columns under GROUP BY's equality (valueKey), +1 an
 * after-image and −1 a before-image. A refresh asks this before binding anything, so the
 * question costs a read of changes the refresh reads anyway (table_changes keeps them
 * decoded) and no statement of its own.
 */
export async function changesNetToNothing(w: Warehouse, table: TableMetadata, check: NetChangeCheck): Promise<boolean> {
  const types = check.columns.map((name) => table.columns.find((c) => c.name === name)?.type);
  // A column gone since the view was defined: no answer here, so the term stays.
  if (types.some((t) => t === undefined)) return false;
  // Key columns only (a view that joins the table by its key and reads nothing else of it):
  // the commits' summaries answer when no key appeared or went, and no change file is read.
  if (check.columns.every((c) => table.primaryKey.includes(c))
    && keysUnchangedBetween(w.listSnapshots(table, { from: check.from + 1n, to: check.to }), check.from, check.to)) return true;
  const net = new Map<string, number>();
  let sliceStart = performance.now();
  for (const { batch } of await w.readChanges(table, check.from, check.to)) {
    const ops = batch.getChild('_change_type')!;
    const values = check.columns.map((name, i) => vectorToValues(batch.getChild(name)!, types[i]!));
    for (let r = 0; r < batch.numRows; r++) {
      const key = JSON.stringify(values.map((v, i) => valueKey(v[r], types[i]!)));
      net.set(key, (net.get(key) ?? 0) + (AFTER_IMAGES.has(ops.get(r) as string) ? 1 : -1));
      if ((r & 1023) === 1023 && performance.now() - sliceStart > SLICE_MS) {
        await setImmediate();
        sliceStart = performance.now();
      }
    }
  }
  for (const n of net.values()) if (n !== 0) return false;
  return true;
}
