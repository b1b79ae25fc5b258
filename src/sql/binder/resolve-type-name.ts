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
  regprocedure: { kind: 'oid' }, regnamespace: { kind: 'oid' }, regoper: { kind: 'oid' }, regoperator: { kind: 'oid' },
  regrole: { kind: 'oid' }, regconfig: { kind: 'oid' }, xid: { kind: 'oid' }, cid: { kind: 'oid' },
  unknown: { kind: 'unknown' },
};

/** The SqlType a TypeName node names (`int`, `varchar(20)`, `numeric(15,2)`, `pg_catalog.int2[]`, `"char"`). */
export function resolveTypeName(typeName: Raw): SqlType {
  const names = strList(typeName.names);
  const name = names[names.length - 1]!.toLowerCase();
  const schema = names.length > 1 ? names[names.length - 2] : undefined;
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
