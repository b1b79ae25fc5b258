import type { FastifyInstance } from 'fastify';

export type Readiness = 'starting' | 'ready' | 'stopping';

/**
 * Probes, open to everyone: /healthz answers while the process serves HTTP; /readyz only
 * once the warehouse is open and the wire listens (503 before, and while stopping).
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: () => Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const r = readiness();
    return reply.code(r === 'ready' ? 200 : 503).send({ status: r });
  });
}
