import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { DdlCommand } from '../../sql/index.js';
import { applyAlterTableAction, checkAlterTableActions, foreignKeyNotice, type LakeAlterAction } from '../alter-table-action.js';
import { dropForeignKeysTo } from '../drop-foreign-keys-to.js';
import { existingTablesToDrop } from '../existing-tables-to-drop.js';
import { runOptimizerGroupDdl } from '../run-optimizer-group-ddl.js';
import { runRoleDdl } from '../run-role-ddl.js';
import { checkDdlPrivileges, columnAclsFollow, describeObject, withNewOwner } from '../ddl-privileges.js';
import { runPrivilegeDdl } from '../run-privilege-ddl.js';
import { runPolicyDdl } from '../run-policy-ddl.js';
import { withTempNamespace } from '../../common/temp-namespace.js';
import { runSequenceDdl } from '../run-sequence-ddl.js';
import { runTypeDdl } from '../run-type-ddl.js';
import { runPublicationDdl } from '../replication/run-publication-ddl.js';
import { runSubscriptionDdl } from '../../service/index.js';
import { checkNotView, dropViewsDependingOn, runViewDdl } from '../run-view-ddl.js';
import type { SessionContext } from '../session-context.js';
import { runMaterializedViewDdl } from '../run-materialized-view-ddl.js';
import { validateTableProperties } from '../table-properties.js';
import { createIndex, dropIndex, uniqueConstraintsForCreate } from '../unique-ddl.js';
import { alterTableIo, viewDdlIo } from '../internal-statements.js';

/** CREATE/ALTER/DROP of schemas, tables, indexes, sequences, views, types and optimizer groups, and COMMENT; returns the command tag. */
export async function runDdl(ctx: SessionContext, c: DdlCommand, params: readonly unknown[] = []): Promise<string> {
  checkDdlPrivileges(ctx, c);
  return withNewOwner(ctx, c, () => runDdlCommand(ctx, c, params));
}

async function runDdlCommand(ctx: SessionContext, c: DdlCommand, params: readonly unknown[]): Promise<string> {
  const w = ctx.deps.warehouse;
  switch (c.kind) {
    case 'createSchema':
      await w.createNamespace(c.name, { ifNotExists: c.ifNotExists });
      return 'CREATE SCHEMA';
    case 'dropSchema':
      for (const n of c.names) await w.dropNamespace(n, { ifExists: c.ifExists, cascade: c.cascade });
      return 'DROP SCHEMA';
    case 'createTable': {
      if (c.properties) validateTableProperties(Object.keys(c.properties), c.properties, ctx.propertyChecks());
      const existed = w.getTable(c.table.namespace, c.table.name) !== undefined;
      const created = await w.createTable({
        namespace: c.table.namespace, name: c.table.name, columns: c.columns, primaryKey: c.primaryKey,
        partitionBy: c.partitionBy, properties: c.properties,
        constraints: [
          ...uniqueConstraintsForCreate(w, c.table.namespace, c.table.name, c.primaryKey, c.columns.map((x) => x.name), c.unique ?? []),
          ...(c.constraints ?? []),
        ],
      }, { ifNotExists: c.ifNotExists });
      if (!existed) for (const k of c.constraints ?? []) { const n = foreignKeyNotice(k); if (n) ctx.notice('NOTICE', SqlState.successfulCompletion, n); }
      if (existed && c.ifNotExists) ctx.notice('NOTICE', SqlState.duplicateTable, `relation "${c.table.name}" already exists, skipping`);
      if (c.temporary && !existed) {
        ctx.temp.noteCreated(created, c.temporary, ctx.transaction.current !== undefined);
        // Outside a transaction block the statement is its transaction: ON COMMIT DROP takes the table at once.
        if (ctx.transaction.current === undefined) await ctx.temp.endTransaction(true);
      }
      return 'CREATE TABLE';
    }
    case 'dropTable': {
      for (const t of c.tables) {
        if (w.getTable(t.namespace, t.name) === undefined && w.getSequence(t.namespace, t.name) !== undefined) {
          throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a table`, { hint: 'Use DROP SEQUENCE to remove a sequence.' });
        }
      }
      checkNotView(w, c.tables);
      const tables = existingTablesToDrop(w, c, (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message));
      await dropViewsDependingOn(w, tables.flatMap((t) => w.getTable(t.namespace, t.name)?.id ?? []), c.cascade, viewDdlIo(ctx));
      await dropForeignKeysTo(w, tables, c.cascade, (n) => ctx.events?.notice(n));
      for (const t of tables) await w.dropTable(t.namespace, t.name, { ifExists: c.ifExists });
      return 'DROP TABLE';
    }
    case 'alterTable': {
      let table = w.getTable(c.table.namespace, c.table.name);
      if (!table) {
        if (c.ifExists) return c.tag ?? 'ALTER TABLE';
        throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
      }
      const io = alterTableIo(ctx);
      const checked = await checkAlterTableActions(table, c.actions.filter((a): a is LakeAlterAction => a.kind !== 'createRef' && a.kind !== 'dropRef'), io);
      for (const a of c.actions) {
        switch (a.kind) {
          case 'createRef': {
            const opts = { fromSnapshot: a.fromSnapshot, orReplace: a.orReplace, ifNotExists: a.ifNotExists, retainMicros: a.retainMicros };
            if (a.refKind === 'branch') await w.createBranch(table, a.name, opts);
            else await w.createTag(table, a.name, opts);
            break;
          }
          case 'dropRef':
            await w.dropRef(table, a.name, { ifExists: a.ifExists, kind: a.refKind });
            break;
          default:
            if (a.kind === 'setProperties') validateTableProperties(Object.keys(a.properties), a.properties, ctx.propertyChecks());
            if (a.kind === 'resetProperties') validateTableProperties(a.keys);
            table = await applyAlterTableAction(w, table, a, io, checked.has(a));
            if (a.kind === 'renameColumn' || a.kind === 'dropColumn') columnAclsFollow(w, table.id, a);
        }
      }
      return c.tag ?? 'ALTER TABLE';
    }
    case 'createSequence': case 'alterSequence': case 'dropSequence':
      return runSequenceDdl(w, c, (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message));
    case 'createIndex':
      return createIndex(w, c, (message) => ctx.notice('NOTICE', '42P07', message));
    case 'dropIndex':
      return dropIndex(w, c, ctx.searchPath(), (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message));
    case 'createOptimizerGroup': case 'alterOptimizerGroup': case 'dropOptimizerGroup':
      return runOptimizerGroupDdl(ctx.optimizing, w, c, (message, sqlstate) => ctx.notice('NOTICE', sqlstate, message));
    case 'createMaterializedView': case 'refreshMaterializedView': case 'dropMaterializedView': case 'alterMaterializedView':
      return runMaterializedViewDdl(ctx, c);
    case 'createView': case 'dropView': case 'alterView': case 'setTableSchema': case 'comment':
      return runViewDdl(w, c, viewDdlIo(ctx));
    case 'createTableAs': {
      const tag = await runViewDdl(w, c, viewDdlIo(ctx, params));
      // Outside a transaction block the statement is its transaction (ON COMMIT DROP / DELETE ROWS act now).
      if (c.temporary !== undefined && ctx.transaction.current === undefined) await ctx.temp.endTransaction(true);
      return tag;
    }
    case 'createSubscription': case 'alterSubscription': case 'dropSubscription':
      return runSubscriptionDdl(c, {
        warehouse: w, inTransactionBlock: ctx.transaction.current !== undefined, workers: ctx.deps.subscriptions,
        notice: (severity, message, hint) => ctx.events?.notice({ severity, sqlstate: severity === 'WARNING' ? '01000' : SqlState.successfulCompletion, message, ...(hint === undefined ? {} : { hint }) }),
      });
    case 'createPublication': case 'alterPublication': case 'dropPublication':
      return runPublicationDdl(w, c, (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message));
    case 'createRole': case 'alterRole': case 'renameRole': case 'dropRole': case 'grantRole': case 'revokeRole':
      return runRoleDdl({
        roles: w.roles, privileges: w.privileges, describe: (o) => describeObject(w, o, ctx.deps.startup.database),
        identity: ctx.identity, setting: (name) => ctx.settings.get(name),
        notice: (severity, sqlstate, message) => ctx.notice(severity, sqlstate, message),
      }, c);
    case 'createPolicy': case 'alterPolicy': case 'dropPolicy': case 'rowSecurity':
      return runPolicyDdl({
        warehouse: w, identity: ctx.identity, privileges: ctx.privileges, notice: (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message),
      }, c);
    case 'grant': case 'revoke': case 'alterOwner': case 'alterDefaultPrivileges':
      return runPrivilegeDdl({
        // The session's temporary schema first, as name lookups see it.
        warehouse: w, identity: ctx.identity, privileges: ctx.privileges, searchPath: withTempNamespace(ctx.searchPath(), ctx.temp.tempNamespace), database: ctx.deps.startup.database,
        notice: (severity, sqlstate, message) => ctx.notice(severity, sqlstate, message),
      }, c);
    case 'createType': case 'alterType': case 'dropType':
      return runTypeDdl(w, c, (message, detail, sqlstate = SqlState.successfulCompletion) =>
        ctx.events?.notice({ severity: 'NOTICE', sqlstate, message, ...(detail === undefined ? {} : { detail }) }));
  }
}
