import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { executeScanTask } from '../../lake/index.js';
import type { TableMetadata, Warehouse } from '../../lake/index.js';
import { valueKey, vectorToValues } from '../../exec/index.js';

/**
 * INSERT semantics for a keyed table: the lake's insert lets a later row win, so
 * without --upsert the loader itself refuses a key that is already in the table or
 * earlier in the file (23505). It holds every key in memory: fine for loading into
 * new or modest tables; --upsert skips it.
 */
export class KeyGuard {
  private constructor(private readonly table: TableMetadata, private readonly indexes: number[], private readonly keys: Set<string>) {}

  static async create(warehouse: Warehouse, table: TableMetadata): Promise<KeyGuard | undefined> {
    if (table.primaryKey.length === 0) return undefined;
    const indexes = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
    const keys = new Set<string>();
    const guard = new KeyGuard(table, indexes, keys);
    if (warehouse.resolveSnapshot(table) === undefined) return guard;
    const plan = await warehouse.planScan({ table, projection: table.primaryKey });
    for (const task of plan.tasks) {
      for await (const b of executeScanTask(task)) {
        const cols = indexes.map((i) => vectorToValues(b.getChild(table.columns[i]!.name)!, table.columns[i]!.type));
        for (let r = 0; r < b.numRows; r++) keys.add(guard.keyOf(cols.map((c) => c[r])));
      }
    }
    return guard;
  }

  /** Records the row's key; throws 23505 when it was seen before. */
  check(row: readonly unknown[], where: () => string): void {
    const k = this.keyOf(this.indexes.map((i) => row[i]));
    if (this.keys.has(k)) {
      const names = this.table.primaryKey.join(', ');
      throw new FloeError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${this.table.name}_pkey"`, {
        detail: `Key (${names})=(${this.indexes.map((i) => String(row[i])).join(', ')}) already exists; ${where()}`,
        hint: 'Use --upsert to replace existing rows.',
      });
    }
    this.keys.add(k);
  }

  private keyOf(values: readonly unknown[]): string {
    return values.map((v, j) => valueKey(v, this.table.columns[this.indexes[j]!]!.type)).join('\u0001');
  }
}
