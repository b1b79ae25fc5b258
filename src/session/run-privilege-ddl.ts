import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import {
  AclRight, PUBLIC_ROLE, aclNewOwner, applyGrant, applyRevoke, privilegeFromName,
} from '../lake/index.js';
import type { Acl, AclTarget, AclWarning, ColumnAcl, ObjectAclRecord, SecuredObject, Warehouse } from '../lake/index.js';
import type { PrivilegeDdl, PrivilegeSpec, RelationRef, RoleRef } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';
import type { RelationKind, SessionPrivileges } from './session-privileges.js';
import { runAlterDefaultPrivileges } from './default-privileges.js';

/** What GRANT, REVOKE and ALTER … OWNER TO need from the session. */
export interface PrivilegeDdlIo {
  readonly warehouse: Warehouse;
  readonly identity: SessionIdentity;
  readonly privileges: SessionPrivileges;
  readonly searchPath: readonly string[];
  readonly database: string;
  notice(severity: 'NOTICE' | 'WARNING', sqlstate: string, message: string): void;
}

/** A relation GRANT can name, found through search_path. */
export interface FoundRelation {
  readonly id: number;
  readonly kind: RelationKind;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly string[];
}

export function findRelation(w: Warehouse, searchPath: readonly string[], ref: RelationRef): FoundRelation | undefined {
  for (const schema of ref.schema === undefined ? searchPath : [ref.schema]) {
    const t = w.getTable(schema, ref.name);
    if (t !== undefined) return { id: t.id, kind: 'table', namespace: schema, name: t.name, columns: t.columns.map((c) => c.name) };
    const v = w.getView(schema, ref.name);
    if (v !== undefined) return { id: v.id, kind: 'view', namespace: schema, name: v.name, columns: v.columns.map((c) => c.name) };
    const s = w.getSequence(schema, ref.name);
    if (s !== undefined) return { id: s.id, kind: 'sequence', namespace: schema, name: s.name, columns: [] };
  }
  return undefined;
}

/** The schemas every database has: GRANT may name them like any other. */
const SYSTEM_SCHEMAS: ReadonlySet<string> = new Set(['pg_catalog', 'information_schema']);

function relationOrError(io: PrivilegeDdlIo, ref: RelationRef): FoundRelation {
  // A schema named outright needs USAGE, as in any statement that looks a name up in it.
  if (ref.schema !== undefined && io.warehouse.listNamespaces().includes(ref.schema)) io.privileges.requireSchema(ref.schema, AclRight.usage);
  const found = findRelation(io.warehouse, io.searchPath, ref);
  if (found === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${ref.schema === undefined ? ref.name : `${ref.schema}.${ref.name}`}" does not exist`);
  return found;
}

function roleOid(io: PrivilegeDdlIo, ref: RoleRef): number {
  const g = io.identity.graph();
  const name = ref.kind === 'name' ? ref.name : ref.kind === 'session_user' ? io.identity.sessionUser() : ref.kind === 'public' ? undefined : io.identity.currentUser();
  if (name === undefined) return PUBLIC_ROLE;
  const r = g.role(name);
  if (r === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
  return r.oid;
}

/** A GRANT or REVOKE's targets, each with the ACL kind and name messages use. */
interface Target {
  readonly object: SecuredObject;
  readonly kind: 'table' | 'sequence' | 'type' | 'schema' | 'database';
  readonly name: string;
  readonly columns: readonly string[];
}

/** A user-defined type GRANT … ON TYPE names, through search_path (42704 when there is none). */
function typeOrError(io: PrivilegeDdlIo, ref: RelationRef): Target {
  if (ref.schema !== undefined && io.warehouse.listNamespaces().includes(ref.schema)) io.privileges.requireSchema(ref.schema, AclRight.usage);
  const schemas = ref.schema === undefined ? io.searchPath : [ref.schema];
  for (const schema of schemas) {
    const t = io.warehouse.getType(schema, ref.name);
    if (t !== undefined) return { object: { kind: 'type', oid: t.oid }, kind: 'type', name: t.name, columns: [] };
  }
  throw new FloeError(SqlState.undefinedObject, `type "${ref.schema === undefined ? ref.name : `${ref.schema}.${ref.name}`}" does not exist`);
}

function targetsOf(io: PrivilegeDdlIo, c: Extract<PrivilegeDdl, { kind: 'grant' | 'revoke' }>): Target[] {
  const w = io.warehouse;
  switch (c.objectKind) {
    case 'table': case 'sequence': {
      const rels = c.allInSchemas === undefined ? c.relations.map((r) => relationOrError(io, r)) : c.allInSchemas.flatMap((schema) => {
        if (!w.listNamespaces().includes(schema)) throw new FloeError(SqlState.undefinedSchema, `schema "${schema}" does not exist`);
        // ALL TABLES takes tables and views; ALL SEQUENCES the sequences.
        return c.objectKind === 'sequence'
          ? w.listSequences(schema).map((s): FoundRelation => ({ id: s.id, kind: 'sequence', namespace: schema, name: s.name, columns: [] }))
          : [
            ...w.listTables(schema).map((t): FoundRelation => ({ id: t.id, kind: 'table', namespace: schema, name: t.name, columns: t.columns.map((x) => x.name) })),
            ...w.listViews(schema).map((v): FoundRelation => ({ id: v.id, kind: 'view', namespace: schema, name: v.name, columns: v.columns.map((x) => x.name) })),
          ];
      });
      return rels.map((r) => ({ object: { kind: 'relation', id: r.id }, kind: r.kind === 'sequence' ? 'sequence' : 'table', name: r.name, columns: r.columns }));
    }
    case 'type':
      return c.relations.map((r) => typeOrError(io, r));
    case 'schema':
      return c.names.map((name) => {
        if (!w.listNamespaces().includes(name) && !SYSTEM_SCHEMAS.has(name)) throw new FloeError(SqlState.undefinedSchema, `schema "${name}" does not exist`);
        return { object: { kind: 'schema', name }, kind: 'schema', name, columns: [] };
      });
    case 'database':
      return c.names.map((name) => {
        if (name !== io.database) throw new FloeError('3D000', `database "${name}" does not exist`);
        return { object: { kind: 'database' }, kind: 'database', name, columns: [] };
      });
  }
}

/**
 * GRANT / REVOKE on relations, columns, schemas and the database: every target's new ACL is
 * computed first (acl-grant.ts: grant options, dependent privileges, PostgreSQL's warnings),
 * then all are written in one catalog transaction, so a statement that fails changes nothing.
 */
export function runPrivilegeDdl(io: PrivilegeDdlIo, c: PrivilegeDdl): string {
  if (c.kind === 'alterOwner') return runAlterOwner(io, c);
  if (c.kind === 'alterDefaultPrivileges') return runAlterDefaultPrivileges(io.warehouse, io.identity, c);
  const me = io.identity.currentRole().oid;
  if (c.grantedBy !== undefined && roleOid(io, c.grantedBy) !== me) throw new FloeError(SqlState.featureNotSupported, 'grantor must be current user');
  const roles = io.identity.graph().privilegeOracle;
  const grantees = c.grantees.map((g) => roleOid(io, g));
  const warnings: AclWarning[] = [];
  const records: ObjectAclRecord[] = [];
  const statementKind = c.objectKind;
  for (const t of targetsOf(io, c)) {
    const current = io.privileges.record(t.object);
    const target: AclTarget = { kind: t.kind, owner: current.owner, acl: current.acl, name: t.name };
    let acl = current.acl;
    const columnAcls: Record<string, Acl> = { ...current.columnAcls };
    const apply = (on: AclTarget, privileges: number | readonly number[] | 'all', columns?: readonly ColumnAcl[]) => {
      const statement = { target: on, statementKind, currentRole: me, grantees, privileges };
      const change = c.kind === 'grant'
        ? applyGrant({ ...statement, withGrantOption: c.grantOption }, roles)
        : applyRevoke({ ...statement, grantOptionFor: c.grantOption, cascade: c.cascade, ...(columns === undefined ? {} : { columns }) }, roles);
      warnings.push(...change.warnings);
      return change;
    };
    const tableLevel = 'all' in c.privileges ? (c.privileges.columns === undefined ? 'all' as const : undefined)
      : c.privileges.filter((p) => p.columns === undefined).map((p) => privilegeBit(p));
    if (tableLevel !== undefined && (tableLevel === 'all' || tableLevel.length > 0)) {
      const columns = t.kind === 'table' && c.kind === 'revoke' ? t.columns.map((name) => ({ name, acl: columnAcls[name] ?? null })) : undefined;
      const change = apply(target, tableLevel, columns);
      acl = change.acl;
      for (const col of change.columns ?? []) setColumn(columnAcls, col.name, col.acl);
    }
    // Column privileges, column by column in the order the statement names them.
    for (const [column, privileges] of columnPrivileges(c.privileges)) {
      if (!t.columns.includes(column)) throw new FloeError(SqlState.undefinedColumn, `column "${column}" of relation "${t.name}" does not exist`);
      const change = apply({ kind: 'column', owner: current.owner, acl: columnAcls[column] ?? null, name: column, table: { ...target, acl } }, privileges);
      setColumn(columnAcls, column, change.acl);
    }
    records.push({ object: t.object, owner: current.owner, acl, columnAcls });
  }
  for (const w of warnings) io.notice('WARNING', w.sqlstate, w.message);
  io.warehouse.privileges.put(records);
  return c.kind === 'grant' ? 'GRANT' : 'REVOKE';
}

function setColumn(acls: Record<string, Acl>, column: string, acl: Acl | null): void {
  if (acl === null || acl.length === 0) delete acls[column];
  else acls[column] = acl;
}

function privilegeBit(p: PrivilegeSpec): number {
  // PostgreSQL spells TEMP and TEMPORARY alike.
  return privilegeFromName(p.name === 'temp' ? 'temporary' : p.name);
}

/** column → the privileges naming it, in statement order (ALL (cols) is every column right). */
function columnPrivileges(privileges: Extract<PrivilegeDdl, { kind: 'grant' | 'revoke' }>['privileges']): Map<string, number[] | 'all'> {
  const out = new Map<string, number[] | 'all'>();
  if ('all' in privileges) {
    for (const col of privileges.columns ?? []) out.set(col, 'all');
    return out;
  }
  for (const p of privileges) {
    for (const col of p.columns ?? []) {
      const list = out.get(col);
      if (list === 'all') continue;
      out.set(col, [...(list ?? []), privilegeBit(p)]);
    }
  }
  return out;
}

const KIND_WORDS: Readonly<Record<RelationKind, string>> = { table: 'table', view: 'view', sequence: 'sequence' };

/** ALTER … OWNER TO: the owner (or a member of the owning role) who may SET ROLE to the new owner, as PostgreSQL 15 asks. */
function runAlterOwner(io: PrivilegeDdlIo, c: Extract<PrivilegeDdl, { kind: 'alterOwner' }>): string {
  const g = io.identity.graph();
  const me = io.identity.currentRole();
  const newOwner = roleOid(io, c.owner);
  const objects: { object: SecuredObject; word: string; name: string; namespace?: string }[] = [];
  if (c.objectKind === 'schema') {
    if (!io.warehouse.listNamespaces().includes(c.name!)) throw new FloeError(SqlState.undefinedSchema, `schema "${c.name}" does not exist`);
    objects.push({ object: { kind: 'schema', name: c.name! }, word: 'schema', name: c.name! });
  } else {
    const r = relationOrError(io, c.relation!);
    if (c.objectKind === 'sequence' && r.kind !== 'sequence') throw new FloeError(SqlState.wrongObjectType, `"${r.name}" is not a sequence`);
    const ownedBy = r.kind === 'sequence' ? io.warehouse.getSequenceById(r.id)?.ownedBy : undefined;
    const ownerTable = ownedBy === undefined ? undefined : io.warehouse.getTableById(ownedBy.tableId);
    if (ownerTable !== undefined) {
      throw new FloeError(SqlState.featureNotSupported, `cannot change owner of sequence "${r.name}"`, { detail: `Sequence "${r.name}" is linked to table "${ownerTable.name}".` });
    }
    if (c.objectKind === 'view' && r.kind !== 'view') throw new FloeError(SqlState.wrongObjectType, `"${r.name}" is not a view`, { hint: 'Use ALTER TABLE instead.' });
    if (c.objectKind === 'materialized view' && (r.kind !== 'table' || io.warehouse.getMaterializedView(r.id) === undefined)) {
      throw new FloeError(SqlState.wrongObjectType, `"${r.name}" is not a materialized view`);
    }
    const word = r.kind === 'table' && io.warehouse.getMaterializedView(r.id) !== undefined ? 'materialized view' : KIND_WORDS[r.kind];
    objects.push({ object: { kind: 'relation', id: r.id }, word, name: r.name, namespace: r.namespace });
    // A table's owned sequences (serial, identity) change owner with it.
    if (r.kind === 'table') {
      for (const s of io.warehouse.listSequences()) {
        if (s.ownedBy?.tableId === r.id) objects.push({ object: { kind: 'relation', id: s.id }, word: 'sequence', name: s.name });
      }
    }
  }
  const first = objects[0]!;
  const current = io.privileges.record(first.object);
  if (current.owner === newOwner) return c.objectKind === 'schema' ? 'ALTER SCHEMA' : `ALTER ${c.objectKind.toUpperCase()}`;
  if (!me.superuser) {
    io.privileges.requireOwner(first.object, first.word, first.name);
    const target = g.roleByOid(newOwner);
    if (!g.isMemberOf(me.oid, newOwner)) throw new FloeError(SqlState.insufficientPrivilege, `must be member of role "${target?.name ?? newOwner}"`);
    // The new owner needs CREATE on the relation's schema (PostgreSQL checks it for the new owner, not the caller).
    if (first.namespace !== undefined && !io.privileges.schemaHeld(first.namespace, AclRight.create, newOwner)) {
      throw new FloeError(SqlState.insufficientPrivilege, `permission denied for schema ${first.namespace}`);
    }
  }
  const records = objects.map(({ object }) => {
    const r = io.privileges.record(object);
    const columnAcls = Object.fromEntries(Object.entries(r.columnAcls).map(([name, acl]) => [name, aclNewOwner(acl, r.owner, newOwner)]));
    return { ...r, owner: newOwner, acl: r.acl === null ? null : aclNewOwner(r.acl, r.owner, newOwner), columnAcls };
  });
  io.warehouse.privileges.put(records);
  return c.objectKind === 'schema' ? 'ALTER SCHEMA' : `ALTER ${c.objectKind.toUpperCase()}`;
}
