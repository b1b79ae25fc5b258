import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, RefRecord } from '../catalog/catalog.js';
import type { TableMetadata } from '../table/table-metadata.js';

/** The ref a write targets: it must exist and be a branch. */
export function writableBranch(catalog: Catalog, table: TableMetadata, name: string): RefRecord {
  if (catalog.getTableById(table.id) === undefined) {
    throw new FloeError(SqlState.undefinedTable, `relation "${table.namespace}.${table.name}" does not exist`);
  }
  const ref = catalog.getRef(table.id, name);
  if (ref === undefined) throw new FloeError(SqlState.undefinedObject, `branch "${name}" of table "${table.name}" does not exist`);
  if (ref.kind !== 'branch') throw new FloeError(SqlState.objectNotInPrerequisiteState, `"${name}" is a tag of table "${table.name}"; tags cannot be written`);
  return ref;
}
