import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type LoginSessions, SESSION_COOKIE, cookieValue } from '../login-sessions.js';
import { checkPassword, type AuthPolicy } from '../request-principal.js';

const loginBody = {
  body: {
    type: 'object', properties: { user: { type: 'string', minLength: 1 }, password: { type: 'string' } },
    required: ['user', 'password'], additionalProperties: false,
  },
} as const;

/** Whether the request arrived over TLS: the cookie is then marked Secure. */
export function arrivedOverTls(request: FastifyRequest): boolean {
  return (request.socket as Partial<TLSSocket>).encrypted === true;
}

/**
 * The login form's endpoints, outside the authenticated scope: POST /api/v1/login checks
 * the password as HTTP Basic does and sets an HttpOnly, SameSite=Strict session cookie;
 * POST /api/v1/logout ends the session.
 */
export function registerLoginRoutes(app: FastifyInstance, sessions: LoginSessions, policy: AuthPolicy): void {
  app.post<{ Body: { user: string; password: string } }>('/api/v1/login', { schema: loginBody }, async (request, reply) => {
    const facts = { remoteAddress: request.socket.remoteAddress ?? '', secure: arrivedOverTls(request) };
    const principal = checkPassword(facts, policy, request.body.user, request.body.password);
    // No Max-Age: the browser forgets the cookie when it closes; the server ends the session when it idles.
    setSessionCookie(reply, sessions.open(principal.user), undefined, facts.secure);
    return principal;
  });
  app.post('/api/v1/logout', async (request, reply) => {
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (id !== undefined) sessions.close(id);
    setSessionCookie(reply, '', 0, arrivedOverTls(request));
    return { loggedOut: true };
  });
}

/** SameSite=Strict: no other site's page can make the browser send it, so admin POSTs need no CSRF token. */
function setSessionCookie(reply: FastifyReply, value: string, maxAgeSeconds: number | undefined, secure: boolean): void {
  const attrs = [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== undefined) attrs.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) attrs.push('Secure');
  void reply.header('set-cookie', attrs.join('; '));
}
