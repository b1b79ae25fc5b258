import type { FastifyInstance } from 'fastify';
import type { DashboardBundle } from '../dashboard-bundle.js';

/**
 * The dashboard's page and its assets, open to everyone (they hold no data: the page asks
 * the API, which wants a login, and shows the login form when refused).
 */
export function registerDashboardRoutes(app: FastifyInstance, bundle: () => Promise<DashboardBundle>): void {
  app.get('/', async (_request, reply) => {
    const { page } = await bundle();
    return reply.type(page.contentType).header('cache-control', 'no-cache').send(page.body);
  });
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = (await bundle()).assets.get(request.params.name);
    if (asset === undefined) return reply.callNotFound();
    return reply.type(asset.contentType).header('cache-control', 'no-cache').send(asset.body);
  });
}
