import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { AlterTableAction, TableName } from '../ddl-command.js';
import { positionOf, strList, type Raw } from './ast.js';

/**
 * ALTER TABLE t ADD [CONSTRAINT t_pkey] PRIMARY KEY (a, …): the lake rewrites the table
 * into the keyed layout (src/lake/table/rewrite-table-layout.ts). Floe's primary key is
 * always named `<table>_pkey`, so another name is refused; so is DEFERRABLE, since a keyed
 * table cannot hold two rows of one key even for a moment, and index options.
 */
export function bindAddPrimaryKey(table: TableName, con: Raw): AlterTableAction {
  const columns = strList(con.keys);
  const dup = columns.find((c, i) => columns.indexOf(c) !== i);
  if (dup !== undefined) {
    throw new FloeError(SqlState.duplicateColumn, `column "${dup}" appears twice in primary key constraint`, { position: positionOf(con) });
  }
  if (con.conname && con.conname !== `${table.name}_pkey`) {
    throw new FloeError(SqlState.featureNotSupported, `a primary key constraint named "${con.conname}" is not supported`, {
      hint: `Floe names a table's primary key "${table.name}_pkey", as PostgreSQL does by default; leave out CONSTRAINT or use that name.`,
      position: positionOf(con),
    });
  }
  if (con.deferrable) {
    throw new FloeError(SqlState.featureNotSupported, 'DEFERRABLE primary keys are not supported', {
      hint: 'Floe checks a primary key at the end of each statement. A DEFERRABLE UNIQUE constraint can be deferred to COMMIT.',
      position: positionOf(con),
    });
  }
  if (con.including?.length || con.indexname || con.options?.length || con.indexspace) {
    throw new FloeError(SqlState.featureNotSupported, 'PRIMARY KEY with INCLUDE, USING INDEX or storage options is not supported', { position: positionOf(con) });
  }
  return { kind: 'addPrimaryKey', columns };
}
