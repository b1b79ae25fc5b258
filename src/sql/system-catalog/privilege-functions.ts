import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { regTypeInput, regTypeOutput, type EvalContext } from '../../exec/index.js';
import type { registerCatalogFunction } from './register-catalog-function.js';
import { AclRight, PUBLIC_ROLE, grantOptionFor } from '../../lake/index.js';
import { catalogAcls, type CatalogAcls } from './catalog-acls.js';
import { FLOE_DATABASE_OID, namespaceOid } from './catalog-oids.js';
import { lakeWarehouse } from './catalog-view.js';
import { relationByName, relationByOid, schemaExists, type SecuredRelation } from './secured-relation.js';

/*
 * has_table_privilege, has_sequence_privilege, has_column_privilege,
 * has_any_column_privilege, has_schema_privilege, has_database_privilege and
 * has_type_privilege in all of
 * PostgreSQL 15's overloads: a role by name or oid (or none: the current user), an object
 * by name or oid, and a privilege list such as 'SELECT, update WITH GRANT OPTION'. Errors
 * come in PostgreSQL's order; an object given by oid that does not exist gives NULL.
 */

const BOOL: SqlType = { kind: 'bool' };
const R = AclRight;
const INVALID_CATALOG_NAME = '3D000';

type Privileges = readonly (readonly [string, number])[];

const TABLE_PRIVILEGES: Privileges = [
  ['SELECT', R.select], ['INSERT', R.insert], ['UPDATE', R.update], ['DELETE', R.delete], ['TRUNCATE', R.truncate],
  ['REFERENCES', R.references], ['TRIGGER', R.trigger], ['RULE', 0],
];
const SEQUENCE_PRIVILEGES: Privileges = [['USAGE', R.usage], ['SELECT', R.select], ['UPDATE', R.update]];
const COLUMN_PRIVILEGES: Privileges = [['SELECT', R.select], ['INSERT', R.insert], ['UPDATE', R.update], ['REFERENCES', R.references]];
const SCHEMA_PRIVILEGES: Privileges = [['CREATE', R.create], ['USAGE', R.usage]];
const TYPE_PRIVILEGES: Privileges = [['USAGE', R.usage]];
const DATABASE_PRIVILEGES: Privileges = [['CREATE', R.create], ['TEMPORARY', R.temporary], ['TEMP', R.temporary], ['CONNECT', R.connect]];

/**
 * A privilege list as PostgreSQL's convert_any_priv_string reads it: comma-separated names,
 * each trimmed and matched case-insensitively, optionally "WITH GRANT OPTION" (spelled with
 * single spaces), OR-ed into one mode mask.
 */
export function privilegeMode(text: string, known: Privileges): number {
  let mode = 0;
  for (const raw of text.split(',')) {
    const chunk = raw.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');
    // pg_strcasecmp folds ASCII letters only.
    const upper = chunk.replace(/[a-z]+/g, (m) => m.toUpperCase());
    const withOption = upper.endsWith(' WITH GRANT OPTION') ? upper.slice(0, -' WITH GRANT OPTION'.length) : undefined;
    const hit = known.find(([name]) => name === upper || name === withOption);
    if (hit === undefined) throw new FloeError(SqlState.invalidParameterValue, `unrecognized privilege type: "${chunk}"`);
    mode |= hit[0] === upper ? hit[1] : grantOptionFor(hit[1]);
  }
  return mode;
}

const isOid = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

/** A role argument: 'public' is PUBLIC, another name must exist (42704); an oid is taken as is, as PostgreSQL does. */
function roleOf(acls: CatalogAcls, value: unknown): number {
  if (isOid(value)) return Number(value);
  const name = String(value);
  if (name === 'public') return PUBLIC_ROLE;
  const r = acls.graph.role(name);
  if (r === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
  return r.oid;
}

function currentRole(acls: CatalogAcls, ctx: EvalContext): number {
  return acls.currentRole ?? roleOf(acls, ctx.user);
}

/** has_column_privilege's answer: null when the column (or its table) is missing. */
function columnCheck(acls: CatalogAcls, rel: SecuredRelation | undefined, attnum: number | undefined, role: number, mode: number): boolean | null {
  if (rel === undefined || attnum === undefined || attnum === 0) return null;
  const column = rel.columns.find((c) => c.attnum === attnum);
  if (column === undefined) return null;
  return acls.columnMask(role, rel.owner, column.acl, mode) !== 0 || acls.relationMask(role, rel, mode) !== 0;
}

function anyColumnCheck(acls: CatalogAcls, rel: SecuredRelation, role: number, mode: number): boolean {
  return acls.relationMask(role, rel, mode) !== 0 || rel.columns.some((c) => c.attnum > 0 && acls.columnMask(role, rel.owner, c.acl, mode) !== 0);
}

function schemaNames(ctx: EvalContext): string[] {
  const w = lakeWarehouse(ctx.warehouse);
  const names = new Set(['pg_catalog', 'information_schema', 'public', ...(w?.listNamespaces() ?? [])]);
  if (w?.tempNamespace !== undefined) names.add(w.tempNamespace);
  return [...names];
}

/** The arguments of a call with an optional leading role: [role, ...rest], the role defaulting to the current user. */
function split(acls: CatalogAcls, ctx: EvalContext, args: unknown[], arity: number): { role: () => number; rest: unknown[] } {
  if (args.length === arity) return { role: () => currentRole(acls, ctx), rest: args };
  return { role: () => roleOf(acls, args[0]), rest: args.slice(1) };
}

function hasTablePrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [table, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  if (isOid(table)) {
    const mode = privilegeMode(String(privileges), TABLE_PRIVILEGES);
    const rel = relationByOid(ctx, acls, Number(table));
    return rel === undefined ? null : acls.relationMask(who, rel, mode) !== 0;
  }
  const rel = relationByName(ctx, acls, String(table));
  return acls.relationMask(who, rel, privilegeMode(String(privileges), TABLE_PRIVILEGES)) !== 0;
}

function hasSequencePrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [sequence, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  const mode = privilegeMode(String(privileges), SEQUENCE_PRIVILEGES);
  const rel = isOid(sequence) ? relationByOid(ctx, acls, Number(sequence)) : relationByName(ctx, acls, String(sequence));
  if (rel === undefined) return null;
  if (rel.relkind !== 'S') throw new FloeError(SqlState.wrongObjectType, `"${isOid(sequence) ? rel.name : String(sequence)}" is not a sequence`);
  return acls.relationMask(who, rel, mode) !== 0;
}

function hasAnyColumnPrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [table, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  if (isOid(table)) {
    const mode = privilegeMode(String(privileges), COLUMN_PRIVILEGES);
    const rel = relationByOid(ctx, acls, Number(table));
    return rel === undefined ? null : anyColumnCheck(acls, rel, who, mode);
  }
  const rel = relationByName(ctx, acls, String(table));
  return anyColumnCheck(acls, rel, who, privilegeMode(String(privileges), COLUMN_PRIVILEGES));
}

/** A column named by text: exact (no case folding); a missing column of an existing table is 42703. */
function columnAttnum(rel: SecuredRelation | undefined, column: string): number | undefined {
  if (rel === undefined) return undefined;
  const c = rel.columns.find((x) => x.name === column);
  if (c === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${column}" of relation "${rel.name}" does not exist`);
  return c.attnum;
}

function hasColumnPrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [table, column, privileges] } = split(acls, ctx, args, 3);
  const who = role();
  const rel = isOid(table) ? relationByOid(ctx, acls, Number(table)) : relationByName(ctx, acls, String(table));
  const attnum = isOid(column) ? Number(column) : columnAttnum(rel, String(column));
  const mode = privilegeMode(String(privileges), COLUMN_PRIVILEGES);
  return columnCheck(acls, rel, attnum, who, mode);
}

function hasSchemaPrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [schema, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  if (isOid(schema)) {
    const mode = privilegeMode(String(privileges), SCHEMA_PRIVILEGES);
    const name = schemaNames(ctx).find((n) => namespaceOid(n) === Number(schema));
    return name === undefined ? null : acls.schemaMask(who, name, mode) !== 0;
  }
  const name = String(schema);
  if (!schemaExists(ctx, name)) throw new FloeError(SqlState.undefinedSchema, `schema "${name}" does not exist`);
  return acls.schemaMask(who, name, privilegeMode(String(privileges), SCHEMA_PRIVILEGES)) !== 0;
}

function hasDatabasePrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [database, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  if (isOid(database)) {
    const mode = privilegeMode(String(privileges), DATABASE_PRIVILEGES);
    return Number(database) !== FLOE_DATABASE_OID ? null : acls.databaseMask(who, mode) !== 0;
  }
  if (String(database) !== ctx.database) throw new FloeError(INVALID_CATALOG_NAME, `database "${String(database)}" does not exist`);
  return acls.databaseMask(who, privilegeMode(String(privileges), DATABASE_PRIVILEGES)) !== 0;
}

/**
 * has_type_privilege: a type named (through search_path, 42704 when missing) or by oid
 * (NULL when missing); an array type answers with its element type's ACL, as in PostgreSQL.
 */
function hasTypePrivilege(args: unknown[], ctx: EvalContext): boolean | null {
  const acls = catalogAcls(ctx);
  const { role, rest: [type, privileges] } = split(acls, ctx, args, 2);
  const who = role();
  const oid = isOid(type) ? Number(type) : regTypeInput('regtype', String(type), ctx);
  const mode = privilegeMode(String(privileges), TYPE_PRIVILEGES);
  const userTypes = lakeWarehouse(ctx.warehouse)?.listTypes?.() ?? [];
  const element = userTypes.find((t) => t.arrayOid === oid)?.oid ?? oid;
  if (isOid(type) && !userTypes.some((t) => t.oid === element) && regTypeOutput('regtype', element, ctx) === String(element)) return null;
  return acls.typeMask(who, element, mode) !== 0;
}

/** Registers the privilege inquiry functions over the catalog's owners and ACLs. */
export function registerPrivilegeFunctions(reg: typeof registerCatalogFunction): void {
  const families: readonly [string, number, (args: unknown[], ctx: EvalContext) => boolean | null][] = [
    ['has_table_privilege', 2, hasTablePrivilege],
    ['has_sequence_privilege', 2, hasSequencePrivilege],
    ['has_any_column_privilege', 2, hasAnyColumnPrivilege],
    ['has_column_privilege', 3, hasColumnPrivilege],
    ['has_schema_privilege', 2, hasSchemaPrivilege],
    ['has_database_privilege', 2, hasDatabasePrivilege],
    ['has_type_privilege', 2, hasTypePrivilege],
  ];
  for (const [name, arity, impl] of families) {
    for (const n of [arity, arity + 1]) reg({ name, args: Array<'any'>(n).fill('any'), returns: BOOL, impl: (a, ctx) => impl(a, ctx) });
  }
}
