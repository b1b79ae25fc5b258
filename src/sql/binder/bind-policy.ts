import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { PolicyCommand } from '../../lake/index.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { roleRef } from './bind-role-ddl.js';
import { bindCheckExpr, parenthesizedText } from './bind-table-constraint.js';
import type { CatalogTable } from '../bind-env.js';
import { resolveRelation } from './resolve-relation.js';

/**
 * CREATE / ALTER / DROP POLICY and ALTER TABLE … ROW LEVEL SECURITY. A policy's USING and
 * WITH CHECK are bound here over the table's row (so an unknown column fails the statement,
 * as in PostgreSQL) and kept as the text the user wrote; scans and writes bind them again.
 */
function policyTable(ctx: BindContext, rv: Raw) {
  const rel = resolveRelation(ctx, rv.schemaname, rv.relname, positionOf(rv));
  if (rel.kind !== 'lake') throw new FloeError(SqlState.wrongObjectType, `"${rv.relname}" is not a table`);
  return rel.table;
}

/** The text inside the parentheses after `keyword` (USING, WITH CHECK) that hold the bound node, from the statement's source. */
function clauseText(ctx: BindContext, keyword: RegExp, node: Raw): string {
  const src = ctx.stmt.source;
  // The clause whose parentheses hold the node's start: USING can also appear inside an expression.
  const start = (positionOf(node) ?? 1) - 1;
  const re = new RegExp(keyword.source, 'gi');
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    const open = src.indexOf('(', m.index);
    const inner = parenthesizedText(src, open);
    if (inner !== undefined && start > open && start < inner.close) return inner.text;
  }
  throw new FloeError(SqlState.syntaxError, 'could not find the text of the policy expression');
}

const USING = /\busing\s*\(/;
const WITH_CHECK = /\bwith\s+check\s*\(/;

export function bindCreatePolicy(ctx: BindContext, n: Raw): BoundStatement {
  const table = policyTable(ctx, n.table);
  const command = ((n.cmd_name as string | undefined) ?? 'all') as PolicyCommand;
  if (n.with_check && (command === 'select' || command === 'delete')) throw new FloeError(SqlState.syntaxError, 'WITH CHECK cannot be applied to SELECT or DELETE');
  if (n.qual && command === 'insert') throw new FloeError(SqlState.syntaxError, 'only WITH CHECK expression allowed for INSERT');
  return {
    kind: 'ddl',
    command: {
      kind: 'createPolicy', name: n.policy_name as string, table: { namespace: table.namespace, name: table.name },
      permissive: n.permissive === true, command,
      roles: ((n.roles as Raw[] | undefined) ?? [{ RoleSpec: { roletype: 'ROLESPEC_PUBLIC' } }]).map((r) => roleRef(r.RoleSpec)),
      ...policyExpressions(ctx, n, table),
    },
  };
}

/** USING and WITH CHECK, bound over the table's row (so a bad column fails here) and kept as written. */
function policyExpressions(ctx: BindContext, n: Raw, table: CatalogTable): { using?: string; check?: string } {
  if (n.qual) bindCheckExpr(ctx, n.qual, table);
  if (n.with_check) bindCheckExpr(ctx, n.with_check, table);
  return {
    ...(n.qual ? { using: clauseText(ctx, USING, n.qual) } : {}),
    ...(n.with_check ? { check: clauseText(ctx, WITH_CHECK, n.with_check) } : {}),
  };
}

export function bindAlterPolicy(ctx: BindContext, n: Raw): BoundStatement {
  const table = policyTable(ctx, n.table);
  return {
    kind: 'ddl',
    command: {
      kind: 'alterPolicy', name: n.policy_name as string, table: { namespace: table.namespace, name: table.name },
      ...(n.roles ? { roles: (n.roles as Raw[]).map((r) => roleRef(r.RoleSpec)) } : {}),
      ...policyExpressions(ctx, n, table),
    },
  };
}

export function bindRenamePolicy(ctx: BindContext, n: Raw): BoundStatement {
  const table = policyTable(ctx, n.relation);
  return { kind: 'ddl', command: { kind: 'alterPolicy', name: n.subname as string, table: { namespace: table.namespace, name: table.name }, rename: n.newname as string } };
}

/** DROP POLICY [IF EXISTS] name ON table: the object list is [table…, name]. */
export function bindDropPolicy(ctx: BindContext, n: Raw): BoundStatement {
  const items = ((n.objects as Raw[])[0].List.items as Raw[]).map((x) => x.String.sval as string);
  const name = items[items.length - 1]!;
  const rv = items.length === 3 ? { schemaname: items[0], relname: items[1] } : { relname: items[0] };
  const rel = resolveRelation(ctx, rv.schemaname, rv.relname!, undefined);
  if (rel.kind !== 'lake') throw new FloeError(SqlState.wrongObjectType, `"${rv.relname}" is not a table`);
  return {
    kind: 'ddl',
    command: { kind: 'dropPolicy', name, table: { namespace: rel.table.namespace, name: rel.table.name }, ifExists: n.missing_ok === true, written: items.slice(0, -1).join('.') },
  };
}

const SWITCHES: Readonly<Record<string, { enabled?: boolean; forced?: boolean }>> = {
  AT_EnableRowSecurity: { enabled: true }, AT_DisableRowSecurity: { enabled: false },
  AT_ForceRowSecurity: { forced: true }, AT_NoForceRowSecurity: { forced: false },
};

/** ALTER TABLE whose every action is ENABLE/DISABLE/[NO] FORCE ROW LEVEL SECURITY; undefined otherwise. */
export function bindRowSecuritySwitch(ctx: BindContext, n: Raw): BoundStatement | undefined {
  const cmds = ((n.cmds ?? []) as Raw[]).map((c) => c.AlterTableCmd?.subtype as string);
  if (cmds.length === 0 || !cmds.every((c) => c in SWITCHES)) return undefined;
  const table = policyTable(ctx, n.relation);
  return {
    kind: 'ddl',
    command: { kind: 'rowSecurity', table: { namespace: table.namespace, name: table.name }, ...Object.assign({}, ...cmds.map((c) => SWITCHES[c])) },
  };
}
