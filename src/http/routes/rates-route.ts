import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './route-context.js';

/** The last hour's commit, ingest, query and error rates, for the overview's charts. */
export function registerRatesRoute(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/api/v1/rates', async () => ({ intervalSeconds: ctx.rateIntervalSeconds, points: ctx.rates.rates() }));
}
