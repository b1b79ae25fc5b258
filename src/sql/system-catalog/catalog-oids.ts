/**
 * OIDs Floe reports for objects that have no lake id. Real PostgreSQL values
 * where clients may rely on them (bootstrap superuser 10, pg_catalog 11,
 * public 2200, heap/btree access methods); stable hashes elsewhere.
 */
export const BOOTSTRAP_SUPERUSER_OID = 10;
export const PG_DATABASE_OWNER_OID = 6171;
export const PG_CATALOG_NAMESPACE_OID = 11;
export const PUBLIC_NAMESPACE_OID = 2200;
export const INFORMATION_SCHEMA_NAMESPACE_OID = 13183;
export const FLOE_DATABASE_OID = 16383;
export const HEAP_AM_OID = 2;
export const BTREE_AM_OID = 403;
export const HASH_AM_OID = 405;
export const DEFAULT_COLLATION_OID = 100;
export const PG_CLASS_OID = 1259;

/** Lake table ids start at 16384; index and constraint oids sit in ranges no table id reaches. */
export function primaryKeyIndexOid(tableId: number): number {
  return 1_000_000_000 + tableId;
}

export function primaryKeyConstraintOid(tableId: number): number {
  return 1_500_000_000 + tableId;
}

/** A column default's pg_attrdef OID, by the column's position in the table. */
export function attrdefOid(tableId: number, columnIndex: number): number {
  return 1_200_000_000 + tableId * 64 + columnIndex;
}

/** The _RETURN rule (pg_rewrite) of a view or materialized view. */
export function viewRuleOid(viewId: number): number {
  return 1_600_000_000 + viewId;
}

/** The composite row type a table has in pg_type (typrelid = the table). */
export function tableRowTypeOid(tableId: number): number {
  return 2_000_000_000 + tableId;
}

/** A stable OID for a user namespace, derived from its name (FNV-1a), in 3,000,000,000 + [0, 10^9). */
export function namespaceOid(name: string): number {
  if (name === 'pg_catalog') return PG_CATALOG_NAMESPACE_OID;
  if (name === 'public') return PUBLIC_NAMESPACE_OID;
  if (name === 'information_schema') return INFORMATION_SCHEMA_NAMESPACE_OID;
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 3_000_000_000 + (h % 1_000_000_000);
}

