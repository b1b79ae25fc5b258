import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './route-context.js';

/** Prometheus's text exposition of every metric (per-table gauges computed now). */
export function registerMetricsRoute(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/metrics', async (_request, reply) => {
    const text = await ctx.metrics.scrape();
    return reply.type(ctx.metrics.registry.contentType).send(text);
  });
}
