import { rewriteWithViews } from '../materialized-view/rewrite-with-views.js';
import { bindAlterMaterializedViewOptions, bindRefreshMaterializedView } from './bind-materialized-view.js';
import { FloeError } from '../../common/floe-error.js';
import { bindAlterRole, bindCreateRole, bindDropRole, bindGrantRole, bindRenameRole } from './bind-role-ddl.js';
import { bindAlterDefaultPrivileges, bindAlterOwner, bindGrant } from './bind-grant.js';
import { bindAlterPolicy, bindCreatePolicy, bindDropPolicy, bindRenamePolicy, bindRowSecuritySwitch } from './bind-policy.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseExplainOptions } from '../../planner/index.js';
import type { BindEnv } from '../bind-env.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import { BindContext } from './bind-context.js';
import { bindArguments } from './bind-arguments.js';
import { bindCopy } from './bind-copy.js';
import { bindLock } from './bind-lock.js';
import { bindSetConstraints } from './bind-set-constraints.js';
import { bindCreateTable } from './bind-create-table.js';
import { bindCreateIndex } from './bind-create-index.js';
import { bindAlterTable, bindCreateSchema, bindDrop, bindRefDdl, bindRename } from './bind-ddl.js';
import { bindInsert } from './bind-insert.js';
import { bindAlterSequence, bindCreateSequence, bindRenameSequence } from './bind-sequence.js';
import { bindMergeWith } from './bind-merge-with.js';
import { bindOptimizerGroupDdl } from './bind-optimizer-group.js';
import { bindSubscriptionDdl } from './bind-subscription.js';
import { bindSelect } from './bind-query.js';
import { bindDelete, bindTruncate, bindUpdate } from './bind-update-delete.js';
import {
  bindClose, bindDeallocate, bindDiscard, bindExecute, bindFetch, bindListen, bindPrepare, bindShow, bindTransaction,
  bindVariableSet, cursorOptions,
} from './bind-utility.js';
import { finishQuery } from './finish-query.js';
import { bindWithDmlStatement, withDataModifyingCtes } from './data-modifying-cte.js';
import { qualifyExisting } from './resolve-relation.js';
import { strList } from './ast.js';
import { bindAlterViewOptions, bindCreateView, bindRenameView, renamesView } from './bind-view.js';
import { bindCreateTableAs, bindSelectInto } from './bind-create-table-as.js';
import { bindCommentOn } from './bind-comment-on.js';
import { bindAlterPublication, bindCreatePublication } from './bind-publication.js';
import { bindSetSchema } from './bind-set-schema.js';
import { bindAlterEnum, bindAlterTypeOwner, bindCreateEnum, bindDefineStmt, bindRenameType, bindSetTypeSchema } from './bind-type-ddl.js';

/** Binds one parsed statement: names, types, and the optimized physical plan (or a command for the session). */
export function bindStatement(stmt: ParsedStatement, env: BindEnv): BoundStatement {
  const ctx = new BindContext(stmt, env);
  for (const c of stmt.lake) {
    if (c.kind === 'refDdl') return bindRefDdl(ctx, c);
    if (c.kind === 'optimizerGroupDdl') return bindOptimizerGroupDdl(c);
    if (c.kind === 'showTblProperties') {
      return { kind: 'utility', command: { kind: 'showTblProperties', table: qualifyExisting(ctx, c.table.schema, c.table.name) } };
    }
  }
  const bound = withDataModifyingCtes(ctx, bindNode(ctx, stmt.ast));
  return { ...bound, accesses: ctx.access.list() };
}

function bindNode(ctx: BindContext, node: Raw): BoundStatement {
  const [tag, n] = unwrap(node);
  switch (tag) {
    case 'SelectStmt': {
      if (n.intoClause) return bindSelectInto(ctx, n);
      // Bound as written first: its privileges and row security are what the statement is checked by.
      const written = bindSelect(ctx, n, undefined);
      const answered = rewriteWithViews(ctx, n, written);
      return answered ?? finishQuery(ctx, written);
    }
    case 'InsertStmt': return bindWithDmlStatement(ctx, n, bindInsert);
    case 'UpdateStmt': return bindWithDmlStatement(ctx, n, bindUpdate);
    case 'DeleteStmt': return bindWithDmlStatement(ctx, n, bindDelete);
    case 'TruncateStmt': return bindTruncate(ctx, n);
    case 'MergeStmt': return bindMergeWith(ctx, n);
    case 'CreateSchemaStmt': return bindCreateSchema(n);
    case 'CreateStmt': return bindCreateTable(ctx, n);
    case 'IndexStmt': return bindCreateIndex(ctx, n);
    case 'DropStmt': return n.removeType === 'OBJECT_POLICY' ? bindDropPolicy(ctx, n) : bindDrop(ctx, n);
    case 'CreatePolicyStmt': return bindCreatePolicy(ctx, n);
    case 'AlterPolicyStmt': return bindAlterPolicy(ctx, n);
    case 'AlterTableStmt': {
      const rowSecurity = bindRowSecuritySwitch(ctx, n);
      if (rowSecurity !== undefined) return rowSecurity;
      const viewOptions = bindAlterViewOptions(ctx, n);
      if (viewOptions !== undefined) return viewOptions;
      const owner = ownerChange(n);
      if (n.objtype === 'OBJECT_MATVIEW' && owner === undefined) return bindAlterMaterializedViewOptions(ctx, n);
      return owner === undefined ? bindAlterTable(ctx, n) : bindAlterOwner(owner.kind, n.relation, owner.newOwner);
    }
    case 'GrantStmt': return bindGrant(n);
    case 'AlterDefaultPrivilegesStmt': return bindAlterDefaultPrivileges(n);
    case 'RenameStmt':
      // A materialized view is renamed as the table it is (PostgreSQL accepts ALTER TABLE for one too).
      if (n.renameType === 'OBJECT_MATVIEW') return withTag(bindRename(ctx, { ...n, renameType: 'OBJECT_TABLE' }), 'ALTER MATERIALIZED VIEW');
      return n.renameType === 'OBJECT_ROLE' ? bindRenameRole(n) : n.renameType === 'OBJECT_POLICY' ? bindRenamePolicy(ctx, n) : n.renameType === 'OBJECT_TYPE' ? bindRenameType(ctx, n) : n.renameType === 'OBJECT_SEQUENCE' ? bindRenameSequence(ctx, n) : renamesView(ctx, n) ? bindRenameView(ctx, n) : bindRename(ctx, n);
    case 'CreateSeqStmt': return bindCreateSequence(ctx, n);
    case 'AlterSeqStmt': return bindAlterSequence(ctx, n);
    case 'TransactionStmt': return bindTransaction(n);
    case 'VariableSetStmt': return bindVariableSet(n);
    case 'VariableShowStmt': return bindShow(n);
    case 'DiscardStmt': return bindDiscard(n);
    case 'DeallocateStmt': return bindDeallocate(n);
    case 'PrepareStmt': return bindPrepare(ctx, n);
    case 'ExecuteStmt': return bindExecute(ctx, n);
    case 'DeclareCursorStmt': {
      const inner = bindNode(ctx, n.query);
      if (inner.kind !== 'query') throw new FloeError(SqlState.featureNotSupported, 'DECLARE CURSOR needs a SELECT', { position: positionOf(n.query) });
      return { kind: 'utility', command: { kind: 'declareCursor', name: n.portalname, query: inner, ...cursorOptions(Number(n.options ?? 0)) } };
    }
    case 'FetchStmt': return bindFetch(n);
    case 'ClosePortalStmt': return bindClose(n);
    case 'CopyStmt': return bindCopy(ctx, n);
    case 'ExplainStmt': {
      const items = ((n.options as Raw[] | undefined) ?? []).map((o) => {
        const d = unwrap(o)[1];
        const arg = d.arg as Raw | undefined;
        // The parser leaves out zero-valued fields: `verbose 0` arrives as an empty Integer node.
        const value = arg === undefined ? undefined : arg.String !== undefined ? String(arg.String.sval ?? '') : arg.Integer !== undefined ? Number(arg.Integer.ival ?? 0)
          : arg.Boolean !== undefined ? arg.Boolean.boolval === true : arg.Float !== undefined ? String(arg.Float.fval) : String(Object.values(arg)[0]);
        return { name: String(d.defname), value };
      });
      const options = parseExplainOptions(items);
      const statement = bindNode(ctx, n.query);
      return { kind: 'utility', command: { kind: 'explain', analyze: options.analyze, verbose: options.verbose, options, statement } };
    }
    case 'CallStmt': {
      const fc = n.funccall;
      const name = strList(fc.funcname).map((s) => s.toLowerCase()).join('.');
      // `name => value` arguments: the values bind as usual, the names go to the session, which knows the parameters.
      const raw = ((fc.args as Raw[] | undefined) ?? []).map((a) => unwrap(a));
      const argNames = raw.map(([t, v]) => (t === 'NamedArgExpr' ? String(v.name) : undefined));
      const values = raw.map(([t, v], i) => (t === 'NamedArgExpr' ? v.arg : (fc.args as Raw[])[i]));
      return {
        kind: 'utility',
        command: { kind: 'call', procedure: name, args: bindArguments(ctx, values), ...(argNames.some((x) => x !== undefined) ? { argNames } : {}) },
      };
    }
    case 'ListenStmt': case 'UnlistenStmt': case 'NotifyStmt': return bindListen(tag, n);
    case 'VacuumStmt': return { kind: 'utility', command: { kind: 'noop', tag: n.is_vacuumcmd ? 'VACUUM' : 'ANALYZE' } };
    case 'CreateSubscriptionStmt': case 'AlterSubscriptionStmt': case 'DropSubscriptionStmt': return bindSubscriptionDdl(tag, n);
    case 'CheckPointStmt': return { kind: 'utility', command: { kind: 'noop', tag: 'CHECKPOINT' } };
    case 'ViewStmt': return bindCreateView(ctx, n);
    case 'CreateTableAsStmt': return bindCreateTableAs(ctx, n);
    case 'RefreshMatViewStmt': return bindRefreshMaterializedView(ctx, n);
    case 'CommentStmt': return bindCommentOn(ctx, n);
    case 'AlterObjectSchemaStmt':
      if (n.objectType === 'OBJECT_MATVIEW') return withTag(bindSetSchema(ctx, n), 'ALTER MATERIALIZED VIEW');
      return n.objectType === 'OBJECT_TYPE' ? bindSetTypeSchema(ctx, n) : bindSetSchema(ctx, n);
    case 'CreateEnumStmt': return bindCreateEnum(ctx, n);
    case 'CreatePublicationStmt': return bindCreatePublication(ctx, n);
    case 'AlterPublicationStmt': return bindAlterPublication(ctx, n);
    case 'DefineStmt': return bindDefineStmt(ctx, n);
    case 'AlterEnumStmt': return bindAlterEnum(ctx, n);
    case 'AlterOwnerStmt':
      if (n.objectType === 'OBJECT_TYPE') return bindAlterTypeOwner(ctx, n);
      if (n.objectType === 'OBJECT_SCHEMA') return bindAlterOwner('schema', n.object, n.newowner);
      throw new FloeError(SqlState.featureNotSupported, 'AlterOwner statements are not supported', { position: positionOf(node) ?? 1 });
    case 'LockStmt': return bindLock(ctx, n);
    case 'CreateRoleStmt': return bindCreateRole(n);
    case 'AlterRoleStmt': return bindAlterRole(n);
    case 'DropRoleStmt': return bindDropRole(n);
    case 'GrantRoleStmt': return bindGrantRole(n);
    case 'ConstraintsSetStmt': return bindSetConstraints(n);
    case 'DoStmt':
      throw new FloeError(SqlState.featureNotSupported, 'DO blocks are not supported', {
        hint: 'Floe has no procedural languages; run the statements of the block one by one.', position: positionOf(node) ?? 1,
      });
    default:
      throw new FloeError(SqlState.featureNotSupported, `${tag.replace(/Stmt$/, '')} statements are not supported`, { position: positionOf(node) ?? 1 });
  }
}

/** ALTER TABLE | VIEW | SEQUENCE … OWNER TO as the statement's only action, which binds on its own. */
function ownerChange(n: Raw): { kind: 'table' | 'view' | 'materialized view' | 'sequence'; newOwner: Raw } | undefined {
  const cmds = (n.cmds ?? []) as Raw[];
  if (cmds.length !== 1 || cmds[0]!.AlterTableCmd?.subtype !== 'AT_ChangeOwner') return undefined;
  const kind = n.objtype === 'OBJECT_VIEW' ? 'view' : n.objtype === 'OBJECT_SEQUENCE' ? 'sequence' : n.objtype === 'OBJECT_MATVIEW' ? 'materialized view' : 'table';
  return { kind, newOwner: cmds[0]!.AlterTableCmd.newowner };
}

/** A table statement spelled for a materialized view: PostgreSQL tags it with the words written. */
function withTag(bound: BoundStatement, tag: string): BoundStatement {
  if (bound.kind !== 'ddl' || (bound.command.kind !== 'alterTable' && bound.command.kind !== 'setTableSchema')) return bound;
  return { ...bound, command: { ...bound.command, tag } };
}
