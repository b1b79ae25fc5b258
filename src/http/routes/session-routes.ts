import type { FastifyInstance } from 'fastify';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { requireSuperuser } from '../request-principal.js';
import { principalOf } from './principal-of.js';
import type { RouteContext } from './route-context.js';

/** Statements the slow-query list shows. */
const SLOWEST_STATEMENTS = 20;

const pidParams = { params: { type: 'object', properties: { pid: { type: 'integer' } }, required: ['pid'] } } as const;

/** Who is connected and what runs (pg_stat_activity), who is asking, and cancelling a session's statement (pg_cancel_backend). */
export function registerSessionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/api/v1/whoami', async (request) => principalOf(request));
  app.get('/api/v1/sessions', async () => ({ sessions: ctx.sessions.list() }));
  // The slowest statements by mean time (floe_stat_statements), for the slow-query list.
  app.get('/api/v1/statements', async () => ({
    statements: [...ctx.sessions.statements()].sort((a, b) => b.meanMs - a.meanMs).slice(0, SLOWEST_STATEMENTS),
  }));
  app.post<{ Params: { pid: number } }>('/api/v1/sessions/:pid/cancel', { schema: pidParams }, async (request) => {
    requireSuperuser(principalOf(request), 'cancel a session\'s query');
    const { pid } = request.params;
    if (!ctx.sessions.cancel(pid)) throw new FloeError(SqlState.undefinedObject, `PID ${pid} is not a Floe session`);
    return { pid, canceled: true };
  });
}
