import type { SqlType } from '../../common/sql-type.js';
import type { VirtualColumn, VirtualTable, VirtualTableContext, VirtualTableRegistry } from '../binder/virtual-table.js';
import { catalogShapes } from './catalog-shapes.js';
import { catalogRowSources } from './catalog-rows.js';
import type { CatalogView } from './catalog-view.js';
import { lakeWarehouse } from './catalog-view.js';
import { lookupLakeSystemTable } from './lake-system-tables.js';
import { catalogRelations } from './materialized-view-relations.js';
import { lookupSequenceRelation } from './sequence-relation.js';
import { serviceRelationRowSources, serviceRelationShapes } from './service-relations.js';
import { materializedViewStatusRowSources, materializedViewStatusShapes } from './materialized-view-status.js';
import { replicationRelationShapes, replicationRowSources } from './replication-relations.js';
import type { ServiceRelations } from './service-relations.js';
import { subscriptionRelationShapes, subscriptionRowSources } from './subscription-relations.js';
import { statementStatisticsRowSources, statementStatisticsShapes } from './statement-statistics-relation.js';
import type { Warehouse } from '../../lake/index.js';

/** A shape spec type ('int4', 'oid[]', 'varchar', …) as a SqlType. */
export function parseShapeType(spec: string): SqlType {
  if (spec.endsWith('[]')) return { kind: 'array', element: parseShapeType(spec.slice(0, -2)) };
  if (spec === 'pg_node_tree') return { kind: 'text', catalogType: 'pg_node_tree' };
  if (spec === 'int2vector') return { kind: 'array', element: { kind: 'int2' }, catalogType: 'int2vector' };
  if (spec === 'oidvector') return { kind: 'array', element: { kind: 'oid' }, catalogType: 'oidvector' };
  return { kind: spec } as SqlType;
}

/** The registry the session hands to the binder and executor: pg_catalog and information_schema, plus anything registered later. */
export interface SystemCatalog extends VirtualTableRegistry {
  /** Adds (or replaces) a virtual relation, e.g. a lakehouse system table. */
  register(table: VirtualTable): void;
  /**
   * This registry plus the lakehouse system tables of `warehouse` (`t$snapshots`,
   * `t$files`, …, and table_changes names), computed on demand from the name.
   * They are deliberately not listed (pg_class, information_schema): see lake-system-tables.ts.
   */
  forWarehouse(warehouse: Warehouse): VirtualTableRegistry;
  /** The services whose rows the service views (floe_optimizing, …) of `warehouse` show. */
  attachServices(warehouse: Warehouse, services: ServiceRelations): void;
}

class SystemCatalogImpl implements SystemCatalog {
  readonly #bySchema = new Map<string, Map<string, VirtualTable>>();
  readonly #perWarehouse = new WeakMap<Warehouse, VirtualTableRegistry>();
  readonly #services = new WeakMap<object, ServiceRelations>();

  attachServices(warehouse: Warehouse, services: ServiceRelations): void {
    this.#services.set(warehouse, services);
  }

  register(table: VirtualTable): void {
    let m = this.#bySchema.get(table.schema);
    if (!m) this.#bySchema.set(table.schema, (m = new Map()));
    m.set(table.name, table);
  }

  lookup(schema: string, name: string): VirtualTable | undefined {
    return this.#bySchema.get(schema)?.get(name);
  }

  forWarehouse(warehouse: Warehouse): VirtualTableRegistry {
    let r = this.#perWarehouse.get(warehouse);
    if (!r) {
      r = {
        lookup: (schema, name) => this.lookup(schema, name) ?? lookupSequenceRelation(warehouse, schema, name) ?? lookupLakeSystemTable(warehouse, schema, name),
        list: (schema) => this.list(schema),
      };
      this.#perWarehouse.set(warehouse, r);
    }
    return r;
  }

  list(schema?: string): readonly VirtualTable[] {
    if (schema !== undefined) return [...(this.#bySchema.get(schema)?.values() ?? [])];
    return [...this.#bySchema.values()].flatMap((m) => [...m.values()]);
  }

  /** What a catalog relation's rows are computed from: the lake as of now, and this registry. */
  view(ctx: VirtualTableContext): CatalogView {
    const w = lakeWarehouse(ctx.warehouse);
    const { tables, materializedViews } = w === undefined ? { tables: [], materializedViews: [] } : catalogRelations(w);
    return {
      ctx,
      namespaces: w?.listNamespaces() ?? ['public'],
      tables,
      materializedViews,
      sequences: w?.listSequences?.() ?? [],
      views: w?.listViews?.() ?? [],
      comments: w?.listComments?.() ?? [],
      virtualTables: this.list(),
      ...(typeof ctx.warehouse === 'object' && ctx.warehouse !== null && this.#services.has(ctx.warehouse)
        ? { services: this.#services.get(ctx.warehouse)! } : {}),
    };
  }
}

/**
 * Builds the catalog registry. Each relation has PostgreSQL 15's exact column
 * names and types; its rows come from the lake catalog at query time, or it is
 * empty (the catalogs Floe has nothing to put in: triggers, policies, …).
 */
export function createSystemCatalog(): SystemCatalog {
  const catalog = new SystemCatalogImpl();
  for (const shape of [...catalogShapes, ...serviceRelationShapes, ...materializedViewStatusShapes, ...replicationRelationShapes, ...subscriptionRelationShapes, ...statementStatisticsShapes]) {
    const columns: VirtualColumn[] = shape.columns.split(' ').map((c) => {
      const at = c.indexOf(':');
      return { name: c.slice(0, at), type: parseShapeType(c.slice(at + 1)) };
    });
    // pg_dump reads `tableoid` beside every catalog row's oid.
    columns.push({ name: 'tableoid', type: { kind: 'oid' }, system: true });
    const key = `${shape.schema}.${shape.name}`;
    const source = subscriptionRowSources[key] ?? catalogRowSources[key] ?? serviceRelationRowSources[key] ?? materializedViewStatusRowSources[key] ?? replicationRowSources[key]
      ?? statementStatisticsRowSources[key];
    catalog.register({
      schema: shape.schema,
      name: shape.name,
      oid: shape.oid,
      columns,
      async rows(ctx) {
        if (!source) return [];
        return source(catalog.view(ctx)).map((r) => columns.map((c) => (c.system === true ? shape.oid : normalize(r[c.name], c.type))));
      },
    });
  }
  return catalog;
}

/** Row objects are written loosely (numbers for int8, missing keys); give each value its canonical form. */
function normalize(v: unknown, t: SqlType): unknown {
  if (v === undefined || v === null) return null;
  switch (t.kind) {
    case 'int8': return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'float4': case 'float8': case 'int2': case 'int4': case 'oid': case 'regproc': case 'regprocedure': case 'regclass': case 'regtype': return Number(v);
    case 'numeric': return String(v);
    case 'text': case 'name': case 'varchar': case 'char': case 'bpchar': return String(v);
    case 'array': return (v as unknown[]).map((e) => normalize(e, t.element));
    default: return v;
  }
}
