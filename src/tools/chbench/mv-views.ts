import { chQueries } from './ch-queries.js';

/**
 * The four CH queries bench:mv keeps as materialized views (issue 31's benchmark), each of a
 * shape the refresh service maintains incrementally:
 * - Q1: one table (order_line), a filter, GROUP BY with sum/avg/count;
 * - Q6: one table, a filter, one sum and no GROUP BY (a single group);
 * - Q12: a two-table join (orders ⋈ order_line), GROUP BY with sum(CASE … END);
 * - Q5: a seven-table join (customer, orders, order_line, stock, supplier, nation, region)
 *   with a join condition over expressions, GROUP BY n_name.
 * The view is the query as ch-queries.ts gives it, less its ORDER BY (a view's rows have no
 * order); the dashboard query is the CH text itself, ORDER BY included, which the gateway
 * answers from the view (a query matching the view's SELECT up to ORDER BY).
 */
export interface MvBenchView {
  readonly query: number;
  /** The view's name: mv_q<number>. */
  readonly name: string;
  /** The SELECT the view is defined by. */
  readonly definition: string;
  /** What a dashboard runs: answered from the view with floe.mv_rewrite on, from the base tables with it off. */
  readonly dashboard: string;
}

export const MV_BENCH_QUERIES: readonly number[] = [1, 6, 12, 5];

/** The query's text without a trailing ORDER BY. */
function withoutOrderBy(sql: string): string {
  return sql.replace(/\s+ORDER BY [^()]*$/i, '');
}

export function mvBenchViews(queries: readonly number[] = MV_BENCH_QUERIES): MvBenchView[] {
  const texts = new Map(chQueries(queries).map((q) => [q.number, q.sql!]));
  return queries.map((n) => {
    const sql = texts.get(n);
    if (sql === undefined) throw new Error(`no CH query Q${n}`);
    return { query: n, name: `mv_q${n}`, definition: withoutOrderBy(sql), dashboard: sql };
  });
}

/** `CREATE MATERIALIZED VIEW` for a view, with its declared freshness in seconds. */
export function createMvSql(view: MvBenchView, freshnessSeconds: number): string {
  return `CREATE MATERIALIZED VIEW ${view.name} WITH (freshness = '${freshnessSeconds} seconds') AS\n${view.definition}`;
}
