import type { SqlType } from '../../common/sql-type.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { enumTypeOfUserType, type UserTypeMetadata } from '../table/user-type-metadata.js';

function currentType(t: SqlType, byOid: ReadonlyMap<number, UserTypeMetadata>): SqlType {
  if (t.kind === 'array') {
    const element = currentType(t.element, byOid);
    return element === t.element ? t : { ...t, element };
  }
  if (t.kind !== 'text' || t.enumType === undefined) return t;
  const u = byOid.get(t.enumType.oid);
  const enumType = u === undefined ? undefined : enumTypeOfUserType(u);
  return enumType === undefined ? t : { kind: 'text', enumType };
}

/**
 * Columns with their enum types as the catalog has them now. A column stores its enum
 * type whole, and ALTER TYPE (ADD VALUE, RENAME VALUE, RENAME, SET SCHEMA) changes only
 * the type's row: reading a table puts the current name and labels back, by oid.
 */
export function currentEnumColumns(columns: readonly ColumnMetadata[], types: readonly UserTypeMetadata[]): ColumnMetadata[] {
  const byOid = new Map(types.map((t) => [t.oid, t]));
  return columns.map((c) => {
    const type = currentType(c.type, byOid);
    return type === c.type ? c : { ...c, type };
  });
}
