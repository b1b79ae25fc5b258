import type { FastifyInstance } from 'fastify';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { requireSuperuser } from '../request-principal.js';
import { principalOf } from './principal-of.js';
import type { RouteContext } from './route-context.js';

const pidParams = { params: { type: 'object', properties: { pid: { type: 'integer' } }, required: ['pid'] } } as const;

/** Who is connected and what runs (pg_stat_activity), who is asking, and cancelling a session's statement (pg_cancel_backend). */
export function registerSessionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/api/v1/whoami', async (request) => principalOf(request));
  app.get('/api/v1/sessions', async () => ({ sessions: ctx.sessions.list() }));
  app.post<{ Params: { pid: number } }>('/api/v1/sessions/:pid/cancel', { schema: pidParams }, async (request) => {
    requireSuperuser(principalOf(request), 'cancel a session\'s query');
    const { pid } = request.params;
    if (!ctx.sessions.cancel(pid)) throw new FloeError(SqlState.undefinedObject, `PID ${pid} is not a Floe session`);
    return { pid, canceled: true };
  });
}
