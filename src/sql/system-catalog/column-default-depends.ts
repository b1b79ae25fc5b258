import { PG_CLASS_OID, attrdefOid } from './catalog-oids.js';
import type { CatalogView } from './catalog-view.js';

/** pg_attrdef's own OID (pg_depend.classid of a column default). */
const PG_ATTRDEF_OID = 2604;

/**
 * pg_depend rows of column defaults, as PostgreSQL records them: a default depends on
 * its column (auto) and on each sequence its nextval reads (normal). pg_dump orders a
 * serial column's DEFAULT after the sequence through the latter (without it the CREATE
 * TABLE would name a sequence not yet created).
 */
export function columnDefaultDependencies(v: CatalogView): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const t of v.tables) {
    t.columns.forEach((c, i) => {
      if (c.defaultExpr === undefined) return;
      const objid = attrdefOid(t.id, i);
      rows.push({ classid: PG_ATTRDEF_OID, objid, objsubid: 0, refclassid: PG_CLASS_OID, refobjid: t.id, refobjsubid: i + 1, deptype: 'a' });
      for (const m of c.defaultExpr.matchAll(/nextval\((\d+)::regclass\)/g)) {
        rows.push({ classid: PG_ATTRDEF_OID, objid, objsubid: 0, refclassid: PG_CLASS_OID, refobjid: Number(m[1]), refobjsubid: 0, deptype: 'n' });
      }
    });
  }
  return rows;
}
