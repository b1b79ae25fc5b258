import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindMerge } from './bind-merge.js';
import { bindWithDmlStatement } from './data-modifying-cte.js';
import { qualifyExisting } from './resolve-relation.js';

/**
 * `WITH … MERGE INTO …` (PostgreSQL 15 allows a WITH before MERGE): the WITH queries are
 * in scope for the source, and data-modifying ones run first, as for INSERT/UPDATE/DELETE.
 * PostgreSQL's MERGE reads the snapshot from before its WITH statements' writes (and
 * raises 21000 on a target row they changed); Floe's reads see those writes. Where that
 * could change what MERGE writes (a WITH statement writes a table the MERGE reads, and
 * an action does more than DO NOTHING) the statement is refused rather than run differently.
 */
export function bindMergeWith(ctx: BindContext, n: Raw): BoundStatement {
  if (n.withClause) refuseReadsOfWrittenTables(ctx, n);
  return bindWithDmlStatement(ctx, n, bindMerge);
}

function refuseReadsOfWrittenTables(ctx: BindContext, n: Raw): void {
  const ctes = (n.withClause.ctes as Raw[]).map((c) => unwrap(c)[1]);
  const cteNames = new Set(ctes.map((c) => c.ctename as string));
  const key = (rv: Raw) => {
    const t = qualifyExisting(ctx, rv.schemaname, rv.relname);
    return `${t.namespace}.${t.name}`;
  };
  const written = new Set<string>();
  for (const c of ctes) {
    const [tag, q] = unwrap(c.ctequery);
    if (tag === 'InsertStmt' || tag === 'UpdateStmt' || tag === 'DeleteStmt') written.add(key(q.relation));
  }
  if (written.size === 0) return;
  const onlyDoNothing = ((n.mergeWhenClauses as Raw[] | undefined) ?? []).every((c) => unwrap(c)[1].commandType === 'CMD_NOTHING');
  if (onlyDoNothing) return;
  const read = [n.relation as Raw, ...rangeVars(n.sourceRelation)].filter((rv) => rv.schemaname !== undefined || !cteNames.has(rv.relname));
  const clash = read.find((rv) => written.has(key(rv)));
  if (clash !== undefined) {
    throw new FloeError(SqlState.featureNotSupported, `MERGE reading "${clash.relname}", which a data-modifying WITH query of the same statement writes, is not supported`, {
      hint: 'PostgreSQL would read the rows as they were before the WITH query; run the statements separately.',
      position: positionOf(clash),
    });
  }
}

/** Every table reference in a FROM item (subqueries included). */
function rangeVars(node: unknown, out: Raw[] = []): Raw[] {
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const x of node) rangeVars(x, out);
    return out;
  }
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === 'RangeVar') out.push(v as Raw);
    else rangeVars(v, out);
  }
  return out;
}
