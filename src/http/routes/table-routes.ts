import type { FastifyInstance } from 'fastify';
import { requireSuperuser } from '../request-principal.js';
import { optimizeNow, setOptimizingEnabled } from '../table-actions.js';
import { recentChanges } from '../recent-changes.js';
import { findTable, tableDetail } from '../table-detail.js';
import { tableSummaries } from '../table-summary.js';
import { principalOf } from './principal-of.js';
import type { RouteContext } from './route-context.js';

interface TableParams {
  readonly schema: string;
  readonly table: string;
}

const tableParams = {
  params: { type: 'object', properties: { schema: { type: 'string' }, table: { type: 'string' } }, required: ['schema', 'table'] },
} as const;

const optimizeBody = {
  ...tableParams,
  body: { type: ['object', 'null'], properties: { kind: { type: 'string' } }, additionalProperties: false },
} as const;

/** The table list, one table's page, and the admin actions on a table. */
export function registerTableRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/api/v1/tables', async () => ({ tables: tableSummaries(ctx.warehouse, ctx.optimizing) }));
  app.get<{ Params: TableParams }>('/api/v1/tables/:schema/:table', { schema: tableParams }, async (request) => {
    const t = findTable(ctx.warehouse, request.params.schema, request.params.table);
    return { ...tableDetail(ctx.warehouse, ctx.optimizing, t), recentChanges: await recentChanges(ctx.warehouse, t) };
  });
  for (const [action, enabled] of [['pause', false], ['resume', true]] as const) {
    app.post<{ Params: TableParams }>(`/api/v1/tables/:schema/:table/${action}`, { schema: tableParams }, async (request) => {
      requireSuperuser(principalOf(request), `${action} optimizing`);
      const t = findTable(ctx.warehouse, request.params.schema, request.params.table);
      return setOptimizingEnabled(ctx.warehouse, ctx.optimizing, t, enabled);
    });
  }
  app.post<{ Params: TableParams; Body: { kind?: string } | null }>('/api/v1/tables/:schema/:table/optimize', { schema: optimizeBody }, async (request) => {
    requireSuperuser(principalOf(request), 'optimize');
    const t = findTable(ctx.warehouse, request.params.schema, request.params.table);
    return optimizeNow(ctx.optimizing, t, request.body?.kind);
  });
}
