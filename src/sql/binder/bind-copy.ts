import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { Exprs } from '../../exec/index.js';
import { LogicalProject } from '../../planner/index.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ResultColumn } from '../result-column.js';
import type { CopyOptions } from '../utility-command.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { noteRead, scanRelation } from './bind-from.js';
import { columnIndex, noteInsertedColumns, resolveDmlTarget } from './bind-dml-target.js';
import { AclRight } from '../../lake/index.js';
import { bindSubquery } from './bind-query.js';
import { defElemValue } from './def-elem.js';
import { finishQuery } from './finish-query.js';
import { resolveRelation } from './resolve-relation.js';

function copyOptions(options: readonly Raw[] | undefined): CopyOptions {
  let format: CopyOptions['format'] = 'text';
  const raw = new Map<string, string | undefined>();
  const lists = new Map<string, string[] | 'all'>();
  for (const o of options ?? []) {
    const d = unwrap(o)[1];
    const name = String(d.defname).toLowerCase();
    if (name === 'force_quote' || name === 'force_not_null' || name === 'force_null') {
      const [tag] = unwrap(d.arg);
      lists.set(name, tag === 'A_Star' ? 'all' : strList(unwrap(d.arg)[1]?.items ?? []));
      continue;
    }
    if (name === 'format') {
      const v = (defElemValue(d.arg) ?? 'text').toLowerCase();
      if (v !== 'text' && v !== 'csv' && v !== 'binary') throw new FloeError(SqlState.invalidParameterValue, `COPY format "${v}" not recognized`, { position: positionOf(d) });
      format = v;
      continue;
    }
    raw.set(name, d.arg === undefined ? 'true' : defElemValue(d.arg));
  }
  const bool = (v: string | undefined): boolean => v !== undefined && ['true', 'on', '1', 'yes'].includes(v.toLowerCase());
  const csv = format === 'csv';
  const quote = raw.get('quote') ?? '"';
  const forceQuote = lists.get('force_quote');
  return {
    format,
    delimiter: raw.get('delimiter') ?? (csv ? ',' : '\t'),
    null: raw.get('null') ?? (csv ? '' : '\\N'),
    header: bool(raw.get('header')),
    quote,
    escape: raw.get('escape') ?? quote,
    forceQuote: forceQuote ?? [],
    forceNotNull: (lists.get('force_not_null') as string[] | undefined) ?? [],
    ...(raw.get('encoding') !== undefined ? { encoding: raw.get('encoding')! } : {}),
    ...(bool(raw.get('upsert')) ? { upsert: true } : {}),
  };
}

export function bindCopy(ctx: BindContext, n: Raw): BoundStatement {
  if (n.is_program) throw new FloeError(SqlState.insufficientPrivilege, 'COPY to or from an external program is not allowed');
  const options = copyOptions(n.options);
  if (n.whereClause) throw new FloeError(SqlState.featureNotSupported, 'COPY FROM … WHERE is not supported', { position: positionOf(n.whereClause) });
  if (options.upsert === true && !n.is_from) throw new FloeError(SqlState.featureNotSupported, 'COPY UPSERT only available using COPY FROM');
  if (n.is_from) {
    const t = resolveDmlTarget(ctx, n.relation, 'copy into');
    const names = strList(n.attlist);
    const indexes = names.length > 0 ? names.map((c) => columnIndex(t, c, n.relation)) : t.table.columns.map((_c, i) => i);
    noteInsertedColumns(ctx, t, indexes);
    // An upsert may overwrite existing rows: UPDATE on those columns too.
    if (options.upsert === true) {
      ctx.access.relation({ id: t.table.id, kind: 'table', namespace: t.table.namespace, name: t.table.name }, AclRight.update);
      for (const i of indexes) ctx.access.updated(t.table.id, i + 1);
    }
    const columns: ResultColumn[] = indexes.map((i) => ({
      name: t.table.columns[i]!.name, type: t.table.columns[i]!.type, tableOid: t.table.id, columnNumber: i + 1,
    }));
    return {
      kind: 'utility',
      command: {
        kind: 'copyFrom', table: { namespace: t.table.namespace, name: t.table.name }, ...(t.branch !== undefined ? { branch: t.branch } : {}),
        columns, source: n.filename ? { file: n.filename } : 'stdin', options,
      },
    };
  }
  let query;
  if (n.query) {
    query = bindSubquery(ctx, n.query, undefined, { correlated: false });
  } else {
    const rel = resolveRelation(ctx, n.relation.schemaname, n.relation.relname, positionOf(n.relation));
    noteRead(ctx, rel);
    const scanned = scanRelation(ctx, rel, {
      relation: n.relation.relname, colnames: [], travel: ctx.stmt.lake.find((c) => c.kind === 'timeTravel' && c.tableLocation === n.relation.location) as never,
      parent: undefined, correlation: { correlated: false }, location: n.relation,
    });
    const names = strList(n.attlist);
    let cols = scanned.scope.columns.filter((c) => !c.hidden);
    if (names.length > 0) {
      cols = names.map((name) => {
        const c = cols.find((x) => x.name === name);
        if (!c) throw new FloeError(SqlState.undefinedColumn, `column "${name}" of relation "${n.relation.relname}" does not exist`, { position: positionOf(n.relation) });
        return c;
      });
    }
    const plan = LogicalProject.create({
      input: scanned.plan, exprs: cols.map((c) => Exprs.column(c.index, c.type, c.name)), columns: cols.map((c) => ({ name: c.name, type: c.type })),
    });
    for (const c of cols) if (c.tableOid > 0 && c.columnNumber > 0) ctx.access.read(c.tableOid, c.columnNumber);
    query = { plan, columns: cols.map((c, i) => ({ ...c, index: i })) };
  }
  const bound = finishQuery(ctx, query);
  return { kind: 'utility', command: { kind: 'copyTo', query: bound, target: n.filename ? { file: n.filename } : 'stdout', options } };
}
