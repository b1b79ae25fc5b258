import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ColumnSpec } from '../ddl-command.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { propertiesOf } from './bind-ddl.js';
import { bindSelect } from './bind-query.js';
import { namedColumns } from './bind-view.js';
import { createTableTarget } from './create-table-target.js';
import { bindCreateMaterializedView } from './bind-materialized-view.js';

/**
 * CREATE TABLE t [(cols)] [WITH (…)] AS query [WITH [NO] DATA], and SELECT … INTO t.
 * The query binds here for its columns; the session creates the table and then runs
 * `INSERT INTO t query` (the same parse tree), so the rows go through the ordinary
 * insert path. Floe's table property `primary_key = 'a,b'` makes it a keyed table.
 * TEMP / `pg_temp.t` puts it in the session's temporary schema, as CREATE TEMP TABLE does.
 */
export function bindCreateTableAs(ctx: BindContext, n: Raw): BoundStatement {
  if (n.objtype === 'OBJECT_MATVIEW') return bindCreateMaterializedView(ctx, n);
  return bindDerivedTable(ctx, n.into, n.query, Boolean(n.if_not_exists));
}

/** SELECT … INTO t FROM …: CREATE TABLE t AS the same SELECT without its INTO. */
export function bindSelectInto(ctx: BindContext, n: Raw): BoundStatement {
  return bindDerivedTable(ctx, n.intoClause, { SelectStmt: { ...n, intoClause: undefined } }, false);
}

function bindDerivedTable(ctx: BindContext, into: Raw, query: Raw, ifNotExists: boolean): BoundStatement {
  const rv = into.rel;
  // PostgreSQL reports CREATE TABLE AS's target errors without a position.
  const { table, temporary } = createTableTarget(ctx, { ...rv, location: -1 }, into.onCommit as string | undefined);
  const [tag, s] = unwrap(query);
  if (tag !== 'SelectStmt') throw new FloeError(SqlState.featureNotSupported, `CREATE TABLE AS ${tag} is not supported`, { position: positionOf(rv) });
  const bound = bindSelect(ctx, s, undefined);
  const columns: ColumnSpec[] = namedColumns(bound, strList(into.colNames), 'CREATE TABLE AS').map((c) => ({ ...c, nullable: true }));
  const properties = propertiesOf(into.options);
  const keyText = properties.primary_key;
  delete properties.primary_key;
  const primaryKey = keyText === undefined ? [] : keyText.split(',').map((k) => k.trim()).filter((k) => k !== '');
  for (const k of primaryKey) {
    if (!columns.some((c) => c.name === k)) throw new FloeError(SqlState.undefinedColumn, `column "${k}" named in key does not exist`);
  }
  const insert: ParsedStatement = {
    ...ctx.stmt,
    ast: {
      InsertStmt: {
        relation: { schemaname: table.namespace, relname: table.name, inh: true, relpersistence: 'p', location: -1 },
        selectStmt: query,
        override: 'OVERRIDING_NOT_SET',
      },
    } as ParsedStatement['ast'],
    isTransactionEnd: false,
  };
  return {
    kind: 'ddl',
    command: {
      kind: 'createTableAs', table, ifNotExists, columns: columns.map((c) => (primaryKey.includes(c.name) ? { ...c, nullable: false } : c)),
      primaryKey, properties, insert: into.skipData ? undefined : insert, ...(temporary !== undefined ? { temporary } : {}),
      paramTypes: ctx.finalParamTypes(),
    },
  };
}
