import type { FastifyInstance } from 'fastify';
import { optimizingOverview } from '../optimizing-overview.js';
import type { RouteContext } from './route-context.js';

export function registerOptimizingRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/api/v1/optimizing', async () => optimizingOverview(ctx.optimizing));
}
