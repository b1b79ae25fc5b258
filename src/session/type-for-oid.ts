import { typeOids } from '../common/sql-type.js';
import type { SqlType, SqlTypeKind } from '../common/sql-type.js';

const byOid = new Map<number, SqlType>();
for (const kind of Object.keys(typeOids) as Exclude<SqlTypeKind, 'array'>[]) {
  const t = { kind } as SqlType;
  byOid.set(typeOids[kind].oid, t);
  if (typeOids[kind].arrayOid !== 0) byOid.set(typeOids[kind].arrayOid, { kind: 'array', element: t });
}

/** The SqlType a client named by OID in Parse; undefined for a type Floe lacks (then it is inferred). */
export function sqlTypeForOid(oid: number): SqlType | undefined {
  return byOid.get(oid);
}
