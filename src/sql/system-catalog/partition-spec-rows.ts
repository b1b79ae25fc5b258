import type { CatalogTableInfo, CatalogView } from './catalog-view.js';

/** A partition field as src/lake keeps it (PartitionField), read loosely through CatalogTableInfo. */
interface SpecField {
  readonly sourceColumn: string;
  readonly transform: { readonly kind: string; readonly width?: number; readonly buckets?: number };
}

function specOf(t: CatalogTableInfo): readonly SpecField[] {
  return (t.partitionBy ?? []) as readonly SpecField[];
}

/**
 * Whether the session is psql, which prints a table's "Partition key:" footer only for a
 * partitioned table (relkind 'p'). psql alone is shown Floe's partitioned tables so:
 * drivers and BI tools list tables of relkind 'r' (pgjdbc's TABLE type), and pg_dump
 * would dump a relkind 'p' table without its rows.
 */
export function presentsPartitionKeys(settings: ReadonlyMap<string, string>): boolean {
  return settings.get('application_name') === 'psql';
}

export function isPartitioned(t: CatalogTableInfo): boolean {
  return specOf(t).length > 0;
}

/** pg_class.relkind of a lake table as this session is shown it. */
export function tableRelkind(v: CatalogView, t: CatalogTableInfo): 'r' | 'p' {
  return isPartitioned(t) && presentsPartitionKeys(v.ctx.settings) ? 'p' : 'r';
}

/**
 * pg_get_partkeydef's text: what follows PARTITION BY in Floe's CREATE TABLE, e.g.
 * `(region, day(ts), bucket(16, id))`; NULL for a table without a partition spec.
 */
export function partitionKeyDef(t: CatalogTableInfo, quote: (s: string) => string): string | null {
  const spec = specOf(t);
  if (spec.length === 0) return null;
  return `(${spec.map((f) => {
    const c = quote(f.sourceColumn);
    switch (f.transform.kind) {
      case 'identity': return c;
      case 'bucket': return `bucket(${f.transform.buckets}, ${c})`;
      case 'truncate': return `truncate(${f.transform.width}, ${c})`;
      default: return `${f.transform.kind}(${c})`;
    }
  }).join(', ')})`;
}

/** pg_partitioned_table rows of the tables shown as partitioned; a transform counts as an expression (attnum 0). */
export function pgPartitionedTableRows(v: CatalogView): Record<string, unknown>[] {
  return v.tables.filter((t) => tableRelkind(v, t) === 'p').map((t) => {
    const spec = specOf(t);
    return {
      partrelid: t.id, partstrat: 'r', partnatts: spec.length, partdefid: 0,
      partattrs: spec.map((f) => (f.transform.kind === 'identity' ? t.columns.findIndex((c) => c.name === f.sourceColumn) + 1 : 0)),
      partclass: spec.map(() => 0), partcollation: spec.map(() => 0), partexprs: null,
    };
  });
}
