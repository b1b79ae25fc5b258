import type { FastifyRequest } from 'fastify';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Principal } from '../request-principal.js';

/** Set by the authentication hook on every request it lets through. */
const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, p: Principal): void {
  principals.set(request, p);
}

/** The request's principal; a route outside the authenticated scope asking for one is a bug. */
export function principalOf(request: FastifyRequest): Principal {
  const p = principals.get(request);
  if (p === undefined) throw new FloeError(SqlState.internalError, 'request was not authenticated');
  return p;
}
