import { quoteTypeName, type SqlType } from '../../common/sql-type.js';
import type { UserTypeMetadata } from '../../lake/index.js';
import { ARRAY_IN_OID } from './pg-type-rows.js';
import { catalogAcls } from './catalog-acls.js';
import { namespaceOid } from './catalog-oids.js';
import { lakeWarehouse, type CatalogView } from './catalog-view.js';

type Row = Record<string, unknown>;

/** User-defined types as the catalog relations read them (src/lake's UserTypeMetadata). */
export type CatalogUserType = UserTypeMetadata;

export function listUserTypes(warehouse: unknown): readonly CatalogUserType[] {
  return lakeWarehouse(warehouse)?.listTypes?.() ?? [];
}

/**
 * pg_type rows of the user types, as PostgreSQL 15 fills them: an enum (typtype 'e',
 * category 'E', 4 bytes by value) and its array type `_name`; a shell type (typtype 'p',
 * not defined, no array).
 */
export function userTypePgTypeRows(v: CatalogView): Row[] {
  const rows: Row[] = [];
  const acls = catalogAcls(v.ctx);
  for (const t of listUserTypes(v.ctx.warehouse)) {
    const owned = acls.type(t.oid);
    const base = {
      typnamespace: namespaceOid(t.namespace), typowner: owned.owner, typdelim: ',', typrelid: 0, typsubscript: 0,
      typnotnull: false, typbasetype: 0, typtypmod: -1, typndims: 0, typmodin: 0, typmodout: 0, typanalyze: 0,
      typdefaultbin: null, typdefault: null, typacl: null, typcollation: 0, typispreferred: false,
      typinput: 0, typoutput: 0, typreceive: 0, typsend: 0,
    };
    const shell = t.labels === undefined;
    rows.push({
      // The array type keeps no ACL of its own: its element type's answers for it.
      ...base, typacl: acls.aclText(owned.acl), oid: t.oid, typname: t.name, typlen: 4, typbyval: true, typtype: shell ? 'p' : 'e', typcategory: shell ? 'P' : 'E',
      typisdefined: !shell, typelem: 0, typarray: t.arrayOid, typalign: 'i', typstorage: 'p',
    });
    if (!shell) {
      rows.push({
        ...base, oid: t.arrayOid, typname: `_${t.name}`, typlen: -1, typbyval: false, typtype: 'b', typcategory: 'A',
        typisdefined: true, typelem: t.oid, typarray: 0, typinput: ARRAY_IN_OID, typalign: 'i', typstorage: 'x',
      });
    }
  }
  return rows;
}

/** pg_enum: one row per label. */
export function pgEnumRows(v: CatalogView): Row[] {
  return listUserTypes(v.ctx.warehouse).flatMap((t) => (t.labels ?? []).map((l) => ({
    oid: l.oid, enumtypid: t.oid, enumsortorder: l.sortOrder, enumlabel: l.label,
  })));
}

/**
 * format_type() / regtype output of a user type's oid (or its array's): qualified unless
 * search_path finds it by its bare name, as PostgreSQL's format_type does (pg_dump empties
 * search_path and so gets every name qualified). Undefined when no user type has the oid.
 */
export function userTypeName(warehouse: unknown, oid: number, searchPath: readonly string[]): string | undefined {
  for (const t of listUserTypes(warehouse)) {
    if (t.oid !== oid && (t.arrayOid !== oid || t.arrayOid === 0)) continue;
    const name = userTypeVisible(warehouse, t.oid, searchPath) ? quoteTypeName(t.name) : `${quoteTypeName(t.namespace)}.${quoteTypeName(t.name)}`;
    return t.oid === oid ? name : `${name}[]`;
  }
  return undefined;
}

/** The SqlType a user type's oid stands for (an enum, or an array of one). */
export function userSqlType(warehouse: unknown, oid: number): SqlType | undefined {
  for (const t of listUserTypes(warehouse)) {
    if (t.labels === undefined || (t.oid !== oid && t.arrayOid !== oid)) continue;
    const e: SqlType = { kind: 'text', enumType: { oid: t.oid, arrayOid: t.arrayOid, namespace: t.namespace, name: t.name, labels: t.labels.map((l) => l.label) } };
    return t.oid === oid ? e : { kind: 'array', element: e };
  }
  return undefined;
}

/** information_schema.columns' udt_* columns: an enum (or an array of one) names its own type and schema. */
export function udtColumns(database: string, t: SqlType): { udt_catalog: string; udt_schema: string; udt_name: string } {
  const e = t.kind === 'array' ? (t.element.kind === 'text' ? t.element.enumType : undefined) : t.kind === 'text' ? t.enumType : undefined;
  if (e !== undefined) return { udt_catalog: database, udt_schema: e.namespace, udt_name: t.kind === 'array' ? `_${e.name}` : e.name };
  return { udt_catalog: database, udt_schema: 'pg_catalog', udt_name: t.kind === 'array' ? `_${t.element.kind}` : t.kind };
}

/** regtype input of a user type's name (`mood`, `s.mood`, `mood[]`), through search_path; undefined when none has it. */
export function userTypeOid(warehouse: unknown, text: string, searchPath: readonly string[]): number | undefined {
  const types = listUserTypes(warehouse);
  if (types.length === 0) return undefined;
  let name = text.trim();
  const array = name.endsWith('[]');
  if (array) name = name.slice(0, -2).trim();
  const parts = name.split('.').map((p) => (p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()));
  const schemas = parts.length > 1 ? [parts[0]!] : searchPath;
  const typeName = parts[parts.length - 1]!;
  for (const s of schemas) {
    const t = types.find((x) => x.namespace === s && x.name === typeName);
    if (t !== undefined) return array ? t.arrayOid : t.oid;
  }
  return undefined;
}

/** pg_type_is_visible: a user type is when search_path finds it by its bare name; every built-in type is. */
export function userTypeVisible(warehouse: unknown, oid: number, searchPath: readonly string[]): boolean {
  const types = listUserTypes(warehouse);
  const t = types.find((x) => x.oid === oid || x.arrayOid === oid);
  if (t === undefined) return true;
  const first = searchPath.map((s) => types.find((x) => x.namespace === s && x.name === t.name)).find((x) => x !== undefined);
  return first?.oid === t.oid;
}
