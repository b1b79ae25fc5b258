import type { EvalContext } from '../../exec/index.js';
import type { Warehouse } from '../../lake/index.js';

type SizedWarehouse = Pick<Warehouse, 'getTableById' | 'listFiles'> & Partial<Pick<Warehouse, 'getViewById'>>;

function sizedWarehouse(w: unknown): SizedWarehouse | undefined {
  const c = w as Partial<SizedWarehouse> | undefined;
  return c && typeof c.getTableById === 'function' && typeof c.listFiles === 'function' ? (c as SizedWarehouse) : undefined;
}

/**
 * pg_relation_size / pg_table_size / pg_total_relation_size of a Floe table:
 * the bytes of the data files live at its main branch's head (base and
 * change stores). NULL for an OID that is no table, as PostgreSQL answers for
 * a dropped relation; 0 for the catalog's own relations and for views, which have
 * no storage (psql's \d+ prints "0 bytes" for them).
 */
export function relationSizeBytes(ctx: EvalContext, oid: number): bigint | null {
  const w = sizedWarehouse(ctx.warehouse);
  const table = w?.getTableById(oid);
  if (table === undefined || w === undefined) return oid < 16384 || w?.getViewById?.(oid) !== undefined ? 0n : null;
  let bytes = 0;
  for (const f of w.listFiles(table)) bytes += f.sizeBytes;
  return BigInt(bytes);
}
