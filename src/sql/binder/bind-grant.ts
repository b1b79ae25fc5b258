import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { PrivilegeSpec } from '../ddl-command.js';
import { str, strList, type Raw } from './ast.js';
import { roleRef } from './bind-role-ddl.js';
import { allRightsFor, privilegeFromName } from '../../lake/index.js';

const OBJECT_KINDS: Readonly<Record<string, 'table' | 'sequence' | 'type' | 'schema' | 'database'>> = {
  OBJECT_TABLE: 'table', OBJECT_SEQUENCE: 'sequence', OBJECT_TYPE: 'type', OBJECT_SCHEMA: 'schema', OBJECT_DATABASE: 'database',
};

const OBJECT_WORDS: Readonly<Record<string, string>> = {
  OBJECT_FUNCTION: 'FUNCTION', OBJECT_PROCEDURE: 'PROCEDURE', OBJECT_ROUTINE: 'ROUTINE', OBJECT_TYPE: 'TYPE', OBJECT_DOMAIN: 'DOMAIN',
  OBJECT_LANGUAGE: 'LANGUAGE', OBJECT_LARGEOBJECT: 'LARGE OBJECT', OBJECT_TABLESPACE: 'TABLESPACE', OBJECT_FDW: 'FOREIGN DATA WRAPPER',
  OBJECT_FOREIGN_SERVER: 'FOREIGN SERVER', OBJECT_PARAMETER_ACL: 'PARAMETER',
};

/** GRANT / REVOKE privileges ON tables, sequences, types, schemas or the database. */
export function bindGrant(n: Raw): BoundStatement {
  const objectKind = OBJECT_KINDS[n.objtype as string];
  if (objectKind === undefined) {
    throw new FloeError(SqlState.featureNotSupported, `GRANT and REVOKE on ${OBJECT_WORDS[n.objtype as string] ?? String(n.objtype)} are not supported`);
  }
  const allInSchema = n.targtype === 'ACL_TARGET_ALL_IN_SCHEMA';
  const objects = (n.objects ?? []) as Raw[];
  const relations = objectKind === 'table' || objectKind === 'sequence'
    ? (allInSchema ? [] : objects.map((o) => ({ ...(o.RangeVar.schemaname === undefined ? {} : { schema: o.RangeVar.schemaname as string }), name: o.RangeVar.relname as string })))
    : objectKind === 'type' ? objects.map(typeRef) : [];
  const names = objectKind === 'schema' || objectKind === 'database' ? objects.map(str) : [];
  const privileges = privilegesOf(n.privileges as Raw[] | undefined);
  return {
    kind: 'ddl',
    command: {
      kind: n.is_grant === true ? 'grant' : 'revoke', objectKind, relations, names,
      ...(allInSchema ? { allInSchemas: objects.map(str) } : {}),
      privileges, grantees: (n.grantees as Raw[]).map((g) => roleRef(g.RoleSpec)),
      grantOption: n.grant_option === true, cascade: n.behavior === 'DROP_CASCADE',
      ...(n.grantor === undefined ? {} : { grantedBy: roleRef(n.grantor) }),
    },
  };
}

/** A type as GRANT … ON TYPE names it: [schema.]name. */
function typeRef(o: Raw): { schema?: string; name: string } {
  const names = strList(o.List?.items ?? o.TypeName?.names ?? []);
  const name = names[names.length - 1]!;
  return names.length > 1 ? { schema: names[names.length - 2]!, name } : { name };
}

/** The privilege list; absent means ALL (with a column list when ALL (cols) was written). */
function privilegesOf(list: Raw[] | undefined): readonly PrivilegeSpec[] | { readonly all: true; readonly columns?: readonly string[] } {
  if (list === undefined) return { all: true };
  const out: PrivilegeSpec[] = [];
  for (const p of list) {
    const a = p.AccessPriv;
    const columns = a.cols === undefined ? undefined : strList(a.cols);
    // ALL (a, b): priv_name is absent.
    if (a.priv_name === undefined) return { all: true, ...(columns === undefined ? {} : { columns }) };
    out.push({ name: a.priv_name as string, ...(columns === undefined ? {} : { columns }) });
  }
  return out;
}

/** ALTER TABLE | VIEW | SEQUENCE … OWNER TO, and ALTER SCHEMA … OWNER TO. */
export function bindAlterOwner(objectKind: 'table' | 'view' | 'materialized view' | 'sequence' | 'schema', target: Raw, newOwner: Raw): BoundStatement {
  if (objectKind === 'schema') return { kind: 'ddl', command: { kind: 'alterOwner', objectKind, name: str(target), owner: roleRef(newOwner) } };
  return {
    kind: 'ddl',
    command: {
      kind: 'alterOwner', objectKind,
      relation: { ...(target.schemaname === undefined ? {} : { schema: target.schemaname as string }), name: target.relname as string },
      owner: roleRef(newOwner),
    },
  };
}

const DEFAULT_KINDS: Readonly<Record<string, 'table' | 'sequence' | 'type' | 'schema'>> = {
  OBJECT_TABLE: 'table', OBJECT_SEQUENCE: 'sequence', OBJECT_TYPE: 'type', OBJECT_SCHEMA: 'schema',
};

/** ALTER DEFAULT PRIVILEGES: FOR ROLE and IN SCHEMA, then the GRANT or REVOKE it holds. */
export function bindAlterDefaultPrivileges(n: Raw): BoundStatement {
  const a = n.action as Raw;
  const objectKind = DEFAULT_KINDS[a.objtype as string];
  if (objectKind === undefined) throw new FloeError(SqlState.featureNotSupported, 'ALTER DEFAULT PRIVILEGES on functions is not supported (Floe has no user-defined functions)');
  const option = (name: string) => ((n.options as Raw[] | undefined) ?? []).find((o) => o.DefElem.defname === name)?.DefElem.arg?.List?.items as Raw[] | undefined;
  const schemas = (option('schemas') ?? []).map(str);
  const privileges = privilegesOf(a.privileges as Raw[] | undefined);
  // PostgreSQL checks each privilege against the kind before the IN SCHEMA rule.
  if (!('all' in privileges)) {
    for (const p of privileges) {
      if ((privilegeFromName(p.name === 'temp' ? 'temporary' : p.name) & allRightsFor(objectKind)) === 0) {
        throw new FloeError(SqlState.invalidGrantOperation, `invalid privilege type ${p.name.toUpperCase()} for ${objectKind}`);
      }
    }
  }
  if (objectKind === 'schema' && schemas.length > 0) {
    throw new FloeError(SqlState.invalidGrantOperation, 'cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS');
  }
  return {
    kind: 'ddl',
    command: {
      kind: 'alterDefaultPrivileges', roles: (option('roles') ?? []).map((r) => roleRef(r.RoleSpec)), schemas, isGrant: a.is_grant === true,
      objectKind, privileges: 'all' in privileges ? { all: true } : privileges, grantees: (a.grantees as Raw[]).map((g) => roleRef(g.RoleSpec)),
      grantOption: a.grant_option === true, cascade: a.behavior === 'DROP_CASCADE',
    },
  };
}
