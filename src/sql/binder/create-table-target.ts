import { FloeError } from '../../common/floe-error.js';
import type { TableConstraint } from '../../lake/index.js';
import type { TableName, TemporaryTableSpec } from '../ddl-command.js';
import { TEMP_SCHEMA_ALIAS, isTempNamespaceName } from '../../common/temp-namespace.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyForDdl } from './resolve-relation.js';

const INVALID_TABLE_DEFINITION = '42P16';

const onCommitActions: Readonly<Record<string, TemporaryTableSpec['onCommit']>> = {
  ONCOMMIT_NOOP: 'preserveRows', ONCOMMIT_PRESERVE_ROWS: 'preserveRows', ONCOMMIT_DELETE_ROWS: 'deleteRows', ONCOMMIT_DROP: 'drop',
};

/**
 * Where CREATE TABLE (and CREATE TABLE … AS) puts the new table: a schema from search_path,
 * or, for TEMP / TEMPORARY or a name qualified with pg_temp, the session's temporary schema
 * (`pg_temp`, which the session resolves to its `pg_temp_N`), with its ON COMMIT action.
 */
export function createTableTarget(ctx: BindContext, rv: Raw, oncommit: string | undefined): { table: TableName; temporary?: TemporaryTableSpec } {
  const schema = rv.schemaname as string | undefined;
  // Another session's pg_temp_N is not a schema this session can see.
  const ownTemp = schema === TEMP_SCHEMA_ALIAS || (schema !== undefined && schema === ctx.env.warehouse.tempNamespace);
  const temporary = rv.relpersistence === 't' || ownTemp;
  const onCommit = onCommitActions[oncommit ?? 'ONCOMMIT_NOOP'] ?? 'preserveRows';
  if (!temporary) {
    if (oncommit !== undefined && oncommit !== 'ONCOMMIT_NOOP') throw new FloeError(INVALID_TABLE_DEFINITION, 'ON COMMIT can only be used on temporary tables');
    return { table: qualifyForDdl(ctx, schema, rv.relname) };
  }
  if (schema !== undefined && !ownTemp) {
    throw new FloeError(INVALID_TABLE_DEFINITION, 'cannot create temporary relation in non-temporary schema', { position: positionOf(rv) });
  }
  return { table: { namespace: TEMP_SCHEMA_ALIAS, name: rv.relname }, temporary: { onCommit } };
}

/** PostgreSQL's rule: a foreign key stays on one side of the temporary / permanent line. */
export function checkForeignKeyPersistence(temporary: boolean, constraints: readonly TableConstraint[]): void {
  for (const c of constraints) {
    if (c.kind !== 'foreignKey' || isTempNamespaceName(c.refNamespace) === temporary) continue;
    throw new FloeError(INVALID_TABLE_DEFINITION, temporary
      ? 'constraints on temporary tables may reference only temporary tables'
      : 'constraints on permanent tables may reference only permanent tables');
  }
}
