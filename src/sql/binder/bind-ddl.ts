import { bindDropMaterializedView } from './bind-materialized-view.js';
import { bindAddPrimaryKey } from './bind-add-primary-key.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { AlterTableAction, DdlCommand, TableName } from '../ddl-command.js';
import type { RefDdlClause } from '../parser/lake-clause.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindColumnDef } from './bind-create-table.js';
import { bindDropType } from './bind-type-ddl.js';
import { bindDropSequence } from './bind-sequence.js';
import { bindAlterColumn, bindAlterConstraint, bindNewColumnConstraints, renameColumnInChecks } from './bind-alter-column.js';
import { defElemKey, defElemValue } from './def-elem.js';
import { qualifyExisting, tryResolveRelation } from './resolve-relation.js';
import { bindDropIndex, uniqueSpecOf } from './bind-unique.js';
import { bindDropView } from './bind-view.js';
import { bindDropPublication } from './bind-publication.js';

function ddl(command: DdlCommand): BoundStatement {
  return { kind: 'ddl', command };
}

export function bindCreateSchema(n: Raw): BoundStatement {
  if (n.schemaElts?.length) {
    throw new FloeError(SqlState.featureNotSupported, 'CREATE SCHEMA with schema elements is not supported', { position: positionOf(n.schemaElts[0]) });
  }
  if (!n.schemaname) throw new FloeError(SqlState.featureNotSupported, 'CREATE SCHEMA AUTHORIZATION without a name is not supported');
  return ddl({ kind: 'createSchema', name: n.schemaname, ifNotExists: Boolean(n.if_not_exists) });
}

export function bindDrop(ctx: BindContext, n: Raw): BoundStatement {
  const cascade = n.behavior === 'DROP_CASCADE';
  const ifExists = Boolean(n.missing_ok);
  switch (n.removeType as string) {
    case 'OBJECT_SCHEMA':
      return ddl({ kind: 'dropSchema', names: (n.objects as Raw[]).map((o) => strList([o])[0] ?? ''), ifExists, cascade });
    case 'OBJECT_TABLE': {
      const written = (n.objects as Raw[]).map((o) => strList(unwrap(o)[1].items));
      const tables: TableName[] = written.map((names) => {
        const name = names[names.length - 1]!;
        return qualifyExisting(ctx, names.length > 1 ? names[names.length - 2] : undefined, name);
      });
      return ddl({ kind: 'dropTable', tables, ifExists, cascade, writtenNames: written.map((names) => names[names.length - 1]!) });
    }
    case 'OBJECT_SEQUENCE': return bindDropSequence(ctx, n);
    case 'OBJECT_INDEX': return bindDropIndex(ctx, n);
    case 'OBJECT_VIEW': return bindDropView(ctx, n);
    case 'OBJECT_MATVIEW': return bindDropMaterializedView(ctx, n);
    case 'OBJECT_TYPE': return bindDropType(ctx, n);
    case 'OBJECT_PUBLICATION': return bindDropPublication(n);
    case 'OBJECT_FUNCTION':
      if (ifExists) return { kind: 'utility', command: { kind: 'noop', tag: `DROP ${String(n.removeType).slice(7)}` } };
      throw new FloeError(SqlState.featureNotSupported, `DROP ${String(n.removeType).slice(7)} is not supported`);
    default:
      throw new FloeError(SqlState.featureNotSupported, `DROP ${String(n.removeType).replace('OBJECT_', '')} is not supported`);
  }
}

/** Reloptions (WITH (…), SET (…), RESET (…)): keys lower-cased, values as text. */
export function propertiesOf(defs: readonly Raw[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of defs ?? []) {
    const e = unwrap(d)[1];
    out[defElemKey(e).toLowerCase()] = defElemValue(e.arg) ?? 'true';
  }
  return out;
}

export function bindAlterTable(ctx: BindContext, n: Raw): BoundStatement {
  if (n.objtype && n.objtype !== 'OBJECT_TABLE') {
    throw new FloeError(SqlState.featureNotSupported, `ALTER ${String(n.objtype).replace('OBJECT_', '')} is not supported`);
  }
  const rv = n.relation;
  const table = qualifyExisting(ctx, rv.schemaname, rv.relname);
  const actions: AlterTableAction[] = [];
  for (const c of n.cmds as Raw[]) {
    const cmd = unwrap(c)[1];
    switch (cmd.subtype as string) {
      case 'AT_AddColumn': {
        const col = bindColumnDef(ctx, unwrap(cmd.def)[1]);
        if (col.primaryKey) throw new FloeError(SqlState.featureNotSupported, 'adding a PRIMARY KEY column is not supported', { position: positionOf(cmd.def) });
        const constraints = bindNewColumnConstraints(ctx, table, col);
        actions.push({ kind: 'addColumn', column: col.spec, ifNotExists: Boolean(cmd.missing_ok), ...(constraints.length > 0 ? { constraints } : {}) });
        for (const spec of col.unique) actions.push({ kind: 'addUnique', spec });
        break;
      }
      case 'AT_ColumnDefault': case 'AT_SetNotNull': case 'AT_DropNotNull': case 'AT_AlterColumnType':
        actions.push(bindAlterColumn(ctx, table, cmd));
        break;
      case 'AT_AddConstraint': {
        const con = unwrap(cmd.def)[1];
        if (con.contype === 'CONSTR_UNIQUE') {
          actions.push({ kind: 'addUnique', spec: uniqueSpecOf(con) });
          break;
        }
        if (con.contype === 'CONSTR_PRIMARY') {
          actions.push(bindAddPrimaryKey(table, con));
          break;
        }
        // A constraint may read columns an earlier ADD COLUMN of the same statement adds.
        actions.push(bindAlterConstraint(ctx, table, cmd, actions.flatMap((a) => (a.kind === 'addColumn' ? [a.column] : []))));
        break;
      }
      case 'AT_DropConstraint':
        actions.push({ kind: 'dropConstraint', name: cmd.name, ifExists: Boolean(cmd.missing_ok) });
        break;
      case 'AT_DropColumn':
        actions.push({ kind: 'dropColumn', name: cmd.name, ifExists: Boolean(cmd.missing_ok) });
        break;
      case 'AT_SetRelOptions':
        actions.push({ kind: 'setProperties', properties: propertiesOf(unwrap(cmd.def)[1].items) });
        break;
      case 'AT_ResetRelOptions':
        actions.push({ kind: 'resetProperties', keys: Object.keys(propertiesOf(unwrap(cmd.def)[1].items)) });
        break;
      default:
        throw new FloeError(SqlState.featureNotSupported, `ALTER TABLE ${String(cmd.subtype).replace('AT_', '')} is not supported`);
    }
  }
  return ddl({ kind: 'alterTable', table, ifExists: Boolean(n.missing_ok), actions });
}

export function bindRename(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.relation;
  const table = qualifyExisting(ctx, rv.schemaname, rv.relname);
  const ifExists = Boolean(n.missing_ok);
  if (n.renameType === 'OBJECT_COLUMN' && n.relationType === 'OBJECT_TABLE') {
    const checkExprs = renameColumnInChecks(ctx, table, n.subname, n.newname);
    return ddl({ kind: 'alterTable', table, ifExists, actions: [{ kind: 'renameColumn', from: n.subname, to: n.newname, ...(checkExprs ? { checkExprs } : {}) }] });
  }
  if (n.renameType === 'OBJECT_TABLE') {
    return ddl({ kind: 'alterTable', table, ifExists, actions: [{ kind: 'renameTable', to: n.newname }] });
  }
  if (n.renameType === 'OBJECT_TABCONSTRAINT') {
    if (n.subname === `${table.name}_pkey`) {
      // The primary key's name is derived from the table's (src/sql/system-catalog), not stored.
      throw new FloeError(SqlState.featureNotSupported, 'renaming a primary key constraint is not supported');
    }
    return ddl({ kind: 'alterTable', table, ifExists, actions: [{ kind: 'renameConstraint', from: n.subname, to: n.newname }] });
  }
  throw new FloeError(SqlState.featureNotSupported, `ALTER ${String(n.renameType).replace('OBJECT_', '')} RENAME is not supported`);
}

/** ALTER TABLE t CREATE/DROP BRANCH|TAG, from the extension pre-pass. */
export function bindRefDdl(ctx: BindContext, c: RefDdlClause): BoundStatement {
  const table = qualifyExisting(ctx, c.table.schema, c.table.name);
  const a = c.action;
  const action: AlterTableAction = a.kind === 'create'
    ? {
        kind: 'createRef', refKind: a.refKind, name: a.name, orReplace: a.orReplace, ifNotExists: a.ifNotExists,
        ...(a.asOfVersion !== undefined ? { fromSnapshot: a.asOfVersion } : {}),
        ...(a.retainMicros !== undefined ? { retainMicros: a.retainMicros } : {}),
      }
    : { kind: 'dropRef', refKind: a.refKind, name: a.name, ifExists: a.ifExists };
  return ddl({ kind: 'alterTable', table, ifExists: c.ifTableExists, actions: [action] });
}
