import { FloeError } from '../common/floe-error.js';
import { isLoopback } from '../common/is-loopback.js';
import type { LoginThrottle } from '../common/login-throttle.js';
import { SqlState } from '../common/sqlstate.js';
import type { HttpCredentials } from './management-sources.js';

/** Who a request acts as. */
export interface Principal {
  readonly user: string;
  readonly superuser: boolean;
}

/**
 * `loopback` (the default): a request from this machine without credentials acts as the
 * bootstrap superuser, as the wire trusts loopback; `always`: every request must log in.
 */
export type HttpAuthMode = 'loopback' | 'always';

export const HTTP_AUTH_MODES: readonly HttpAuthMode[] = ['loopback', 'always'];

/** What the decision needs of a request. */
export interface RequestFacts {
  readonly remoteAddress: string;
  /** Arrived over TLS. */
  readonly secure: boolean;
  readonly authorization: string | undefined;
  /** The user of the request's live login session (login-sessions.ts), if its cookie names one. */
  readonly sessionUser?: string | undefined;
}

export interface AuthPolicy {
  readonly mode: HttpAuthMode;
  readonly credentials: HttpCredentials;
  /** The user a trusted loopback request acts as. */
  readonly trustedUser: string;
  /** Failed logins per address, the wire's too (src/common/login-throttle.ts); none: no throttling. */
  readonly throttle?: LoginThrottle;
}

/** The realm Basic challenges name. */
export const BASIC_CHALLENGE = 'Basic realm="floe", charset="UTF-8"';

/** The challenge the dashboard's requests get: a scheme no browser prompts for, naming the login endpoint. */
export const DASHBOARD_CHALLENGE = 'FloeLogin realm="floe", action="/api/v1/login"';

/**
 * The principal of a request, or the error that refuses it (28000 no or unusable
 * credentials, or an address locked out after failed logins; 28P01 a wrong password:
 * all 401 with a Basic challenge).
 *
 * Credentials, when given, are always checked, from loopback too, so a script can act
 * as a user with less power. Basic sends the password itself, so off loopback it is
 * taken only over TLS: over plain HTTP it would cross the network readable.
 */
export function authenticateRequest(req: RequestFacts, policy: AuthPolicy): Principal {
  const loopback = isLoopback(req.remoteAddress);
  if (req.authorization === undefined) {
    // A login session acts as its user, from loopback too: logging in is how to act as someone lesser.
    if (req.sessionUser !== undefined) return { user: req.sessionUser, superuser: policy.credentials.isSuperuser(req.sessionUser) };
    if (policy.mode === 'loopback' && loopback) return { user: policy.trustedUser, superuser: true };
    throw new FloeError(SqlState.invalidAuthorizationSpecification, 'authentication required', { hint: 'Log in, or send HTTP Basic credentials of a user added with "floe user add".' });
  }
  const basic = parseBasic(req.authorization);
  if (basic === undefined) throw new FloeError(SqlState.invalidAuthorizationSpecification, 'only HTTP Basic authentication is supported');
  return checkPassword(req, policy, basic.user, basic.password);
}

/**
 * The principal of a user and password sent by HTTP Basic or the login form. A password
 * is taken off loopback only over TLS: over plain HTTP it would cross the network readable.
 */
export function checkPassword(req: Pick<RequestFacts, 'remoteAddress' | 'secure'>, policy: AuthPolicy, user: string, password: string): Principal {
  if (!req.secure && !isLoopback(req.remoteAddress)) {
    throw new FloeError(SqlState.invalidAuthorizationSpecification, 'password authentication over plain HTTP is refused off loopback', {
      hint: 'Start floe serve with --tls-cert and --tls-key to serve HTTPS.',
    });
  }
  policy.throttle?.check(req.remoteAddress);
  if (!policy.credentials.verify(user, password)) {
    policy.throttle?.failed(req.remoteAddress);
    throw new FloeError(SqlState.invalidPassword, `password authentication failed for user "${user}"`);
  }
  policy.throttle?.succeeded(req.remoteAddress);
  return { user, superuser: policy.credentials.isSuperuser(user) };
}

/** RFC 7617: `Basic base64(user ":" password)`, UTF-8; the user may not contain a colon, the password may. */
function parseBasic(header: string): { user: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (m === null) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** 42501 for a non-superuser's admin action. */
export function requireSuperuser(p: Principal, action: string): void {
  if (!p.superuser) throw new FloeError(SqlState.insufficientPrivilege, `permission denied to ${action}`, { detail: `User "${p.user}" is not a superuser.` });
}
