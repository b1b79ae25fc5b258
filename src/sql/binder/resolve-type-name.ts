import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { positionOf, strList, type Raw } from './ast.js';

const simple: Record<string, SqlType> = {
  bool: { kind: 'bool' }, boolean: { kind: 'bool' },
  int2: { kind: 'int2' }, smallint: { kind: 'int2' },
  int4: { kind: 'int4' }, int: { kind: 'int4' }, integer: { kind: 'int4' }, serial: { kind: 'int4' },
  int8: { kind: 'int8' }, bigint: { kind: 'int8' }, bigserial: { kind: 'int8' },
  float4: { kind: 'float4' }, real: { kind: 'float4' },
  float8: { kind: 'float8' }, 'double precision': { kind: 'float8' }, float: { kind: 'float8' },
  text: { kind: 'text' }, name: { kind: 'name' }, char: { kind: 'char' }, bytea: { kind: 'bytea' },
  date: { kind: 'date' }, time: { kind: 'time' }, timetz: { kind: 'timetz' }, timestamp: { kind: 'timestamp' }, timestamptz: { kind: 'timestamptz' },
  interval: { kind: 'interval' }, uuid: { kind: 'uuid' }, json: { kind: 'json' }, jsonb: { kind: 'jsonb' },
  oid: { kind: 'oid' }, regclass: { kind: 'regclass' }, regtype: { kind: 'regtype' }, regproc: { kind: 'regproc' },
  // No dedicated SqlType: these OID aliases behave as plain oids here.
  regprocedure: { kind: 'regprocedure' }, regnamespace: { kind: 'oid' }, regoper: { kind: 'oid' }, regoperator: { kind: 'oid' },
  regrole: { kind: 'oid' }, regconfig: { kind: 'oid' }, xid: { kind: 'oid' }, cid: { kind: 'oid' },
  unknown: { kind: 'unknown' },
};

/**
 * A user-defined type by name (schema as written, or undefined to search search_path):
 * an enum's SqlType, 'shell' for a shell type, undefined when there is none.
 */
export type UserTypeLookup = (schema: string | undefined, name: string) => SqlType | 'shell' | undefined;

/**
 * The SqlType a TypeName node names (`int`, `varchar(20)`, `numeric(15,2)`, `pg_catalog.int2[]`,
 * `"char"`, or a user-defined enum through `userTypes`).
 */
export function resolveTypeName(typeName: Raw, userTypes?: UserTypeLookup): SqlType {
  const names = strList(typeName.names);
  const schema = names.length > 1 ? names[names.length - 2] : undefined;
  const user = schema === 'pg_catalog' ? undefined : userType(typeName, names, schema, userTypes);
  if (user !== undefined) return user;
  const name = names[names.length - 1]!.toLowerCase();
  if (schema !== undefined && schema !== 'pg_catalog') {
    throw new FloeError(SqlState.undefinedObject, `type "${names.join('.')}" does not exist`, { position: positionOf(typeName) });
  }
  const mods: number[] = (typeName.typmods ?? []).map((m: Raw) => Number(m?.A_Const?.ival?.ival ?? 0));
  let base: SqlType | undefined;
  switch (name) {
    case 'varchar': case 'character varying':
      base = mods.length > 0 ? { kind: 'varchar', length: mods[0]! } : { kind: 'varchar' };
      break;
    case 'bpchar': case 'character':
      // CHAR without a length is char(1), as in PostgreSQL; the grammar spells it bpchar(1) already.
      base = mods.length > 0 ? { kind: 'bpchar', length: mods[0]! } : { kind: 'bpchar' };
      break;
    case 'numeric': case 'decimal':
      base = mods.length > 0 ? { kind: 'numeric', precision: mods[0]!, scale: mods[1] ?? 0 } : { kind: 'numeric' };
      break;
    default:
      base = simple[name];
  }
  if (base === undefined) {
    throw new FloeError(SqlState.undefinedObject, `type "${names.join('.')}" does not exist`, { position: positionOf(typeName) });
  }
  const bounds = (typeName.arrayBounds ?? []) as Raw[];
  if (bounds.length > 0) return { kind: 'array', element: base };
  return base;
}

/** A user type the name finds (builtin names win when unqualified: pg_catalog is searched first). */
function userType(typeName: Raw, names: readonly string[], schema: string | undefined, userTypes: UserTypeLookup | undefined): SqlType | undefined {
  if (userTypes === undefined) return undefined;
  const name = names[names.length - 1]!;
  if (schema === undefined && (simple[name] !== undefined || /^(varchar|character varying|bpchar|character|numeric|decimal)$/.test(name))) return undefined;
  const found = userTypes(schema, name);
  if (found === undefined) return undefined;
  if (found === 'shell') {
    throw new FloeError(SqlState.undefinedObject, `type "${names.join('.')}" is only a shell`, { position: positionOf(typeName) });
  }
  const bounds = (typeName.arrayBounds ?? []) as Raw[];
  return bounds.length > 0 ? { kind: 'array', element: found } : found;
}
