import { FLOE_DATABASE_OID } from './catalog-oids.js';
import { roleCatalogOf } from './role-rows.js';
import type { CatalogView } from './catalog-view.js';

/**
 * floe_stat_statements: the server's statement statistics, one row per user, database and
 * normalized statement, with pg_stat_statements's column names and units (times in ms),
 * plus the user's name. In pg_catalog like the other floe_* views, so found unqualified.
 * The rows come from the session's server functions, which the whole gateway shares.
 */
export const statementStatisticsShapes = [
  {
    schema: 'pg_catalog', name: 'floe_stat_statements', oid: 16303, relkind: 'v',
    columns: 'userid:oid usename:name dbid:oid queryid:int8 query:text calls:int8 total_exec_time:float8 min_exec_time:float8 '
      + 'max_exec_time:float8 mean_exec_time:float8 stddev_exec_time:float8 rows:int8',
  },
] as const;

type Row = Record<string, unknown>;

function floeStatStatements(v: CatalogView): Row[] {
  return (v.ctx.server?.statementStatistics() ?? []).map((s) => ({
    userid: roleCatalogOf(v.ctx)?.get(s.user)?.oid ?? 0, usename: s.user, dbid: FLOE_DATABASE_OID, queryid: s.queryId, query: s.query, calls: s.calls,
    total_exec_time: s.totalExecTime, min_exec_time: s.minExecTime, max_exec_time: s.maxExecTime, mean_exec_time: s.meanExecTime,
    stddev_exec_time: s.stddevExecTime, rows: s.rows,
  }));
}

export const statementStatisticsRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.floe_stat_statements': floeStatStatements,
};
