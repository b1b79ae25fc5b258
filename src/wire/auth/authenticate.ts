import { randomBytes, timingSafeEqual } from 'node:crypto';
import { FloeError } from '../../common/floe-error.js';
import type { LoginThrottle } from '../../common/login-throttle.js';
import { md5Response } from '../../common/md5-password.js';
import { hmacSha256, makeScramVerifier, parseScramVerifier, sha256, type ScramSecret } from '../../common/scram-secret.js';
import { decodeSaslInitialResponse, passwordText, type AuthenticationRequest, type PasswordMessage } from '../messages/auth.js';
import type { FrontendMessage } from '../messages/frontend-message.js';
import { ClientGone } from '../client-gone.js';
import type { AuthProvider, LoginRole } from './auth-provider.js';
import { matchHbaRule } from './hba-match.js';
import type { ClientCertificate } from './client-certificate.js';
import { checkPassword, sameSecret, usableVerifier } from './password-check.js';
import type { HbaRule } from './hba-rules.js';

/** What the authentication exchange needs from the connection. */
export interface AuthChannel {
  send(msg: AuthenticationRequest): void;
  flush(): Promise<void>;
  /** The next frontend message, or null when the client went away. */
  read(): Promise<FrontendMessage | null>;
}

/** A connection that has sent its startup packet, as the rules see it. */
export interface LoginAttempt {
  readonly user: string;
  readonly database: string;
  readonly remoteAddress: string;
  readonly ssl: boolean;
  /** A physical replication connection (replication=true): hba's `replication` keyword matches it. */
  readonly replication: boolean;
  /** A walsender, physical or logical (replication=true or database): only superusers and REPLICATION roles may start one. */
  readonly walsender: boolean;
  /** The client's TLS certificate, when it sent one: whether a trusted CA issued it, and its CN. */
  readonly clientCertificate?: ClientCertificate;
}

const fatal = (sqlstate: string, message: string) => new FloeError(sqlstate, message, { severity: 'FATAL' });
const failed = (user: string) => fatal('28P01', `password authentication failed for user "${user}"`);
const protocol = (message: string) => fatal('08P01', message);

async function readPassword(ch: AuthChannel): Promise<PasswordMessage> {
  await ch.flush();
  const msg = await ch.read();
  if (msg === null) throw new ClientGone();
  if (msg.kind !== 'PasswordMessage') {
    throw protocol(`expected password response, got message type ${msg.kind}`);
  }
  return msg;
}

/** PostgreSQL's words for a connection no rule lets in (rejected: a `reject` rule matched). */
function refusal(rejected: boolean, a: LoginAttempt): FloeError {
  const encryption = a.ssl ? 'SSL encryption' : 'no encryption';
  const who = `user "${a.user}"`;
  if (a.replication) {
    return fatal('28000', rejected
      ? `pg_hba.conf rejects replication connection for host "${a.remoteAddress}", ${who}, ${encryption}`
      : `no pg_hba.conf entry for replication connection from host "${a.remoteAddress}", ${who}, ${encryption}`);
  }
  const target = `host "${a.remoteAddress}", ${who}, database "${a.database}", ${encryption}`;
  return fatal('28000', rejected ? `pg_hba.conf rejects connection for ${target}` : `no pg_hba.conf entry for ${target}`);
}

/**
 * Picks the first pg_hba rule that matches and runs its method; returns the role that
 * logged in on success, throws a FATAL FloeError otherwise. After the method, the role must
 * exist and may log in (PostgreSQL checks these after authentication, so a password
 * exchange never tells which roles exist). A method that checks a password asks `throttle`
 * first (a locked-out address is refused before any exchange) and tells it how the exchange
 * ended; trust has nothing to guess, so it neither counts nor is refused.
 */
export async function authenticate(ch: AuthChannel, provider: AuthProvider, attempt: LoginAttempt, throttle?: LoginThrottle): Promise<LoginRole> {
  const rule = matchHbaRule(provider.hba().rules, {
    type: 'host', ssl: attempt.ssl, address: attempt.remoteAddress, database: attempt.database, user: attempt.user,
    isReplication: attempt.replication, isMemberOf: (user, role) => provider.isMemberOf(user, role),
  });
  if (rule === undefined) throw refusal(false, attempt);
  if (rule.method === 'reject') throw refusal(true, attempt);
  checkClientCertificate(rule, attempt);
  if (rule.method !== 'trust' && rule.method !== 'cert') {
    throttle?.check(attempt.remoteAddress);
    try {
      await exchange(ch, rule, provider.role(attempt.user), attempt.user);
    } catch (e) {
      // A wrong password or a malformed exchange counts; a client that hung up to ask its user for a password does not.
      if (e instanceof FloeError) throttle?.failed(attempt.remoteAddress);
      throw e;
    }
    throttle?.succeeded(attempt.remoteAddress);
  }
  const role = provider.role(attempt.user);
  if (role === undefined) throw fatal('28000', `role "${attempt.user}" does not exist`);
  if (!role.canLogin) throw fatal('28000', `role "${attempt.user}" is not permitted to log in`);
  if (attempt.walsender && !role.superuser && !role.replication) throw fatal('42501', 'must be superuser or replication role to start walsender');
  return role;
}

/**
 * hba's `cert` method and `clientcert` option: a certificate that chains to the server's CA
 * (verify-ca), whose CN is the user name (verify-full; cert implies it), as PostgreSQL
 * checks them (its pg_ident maps are not supported: the CN must be the role's name).
 */
function checkClientCertificate(rule: HbaRule, a: LoginAttempt): void {
  const need = rule.method === 'cert' ? 'verify-full' : rule.clientCert;
  if (need === null) return;
  const cert = a.clientCertificate;
  if (cert === undefined || !cert.verified) throw fatal('28000', 'connection requires a valid client certificate');
  if (need === 'verify-full' && cert.commonName !== a.user) {
    throw fatal('28000', rule.method === 'cert'
      ? `certificate authentication failed for user "${a.user}"`
      : `certificate validation (clientcert=verify-full) failed for user "${a.user}"`);
  }
}

async function exchange(ch: AuthChannel, rule: HbaRule, role: LoginRole | undefined, user: string): Promise<void> {
  // No password, or an expired one: every exchange fails.
  const stored = usableVerifier(role);
  const scramSecret = stored === undefined ? undefined : parseScramVerifier(stored);
  switch (rule.method) {
    case 'password': {
      ch.send({ kind: 'AuthenticationCleartextPassword' });
      const password = passwordText(await readPassword(ch));
      if (password === '' || !checkPassword(role, user, password)) throw failed(user);
      return;
    }
    case 'md5': {
      // As PostgreSQL: md5 in the rules still runs SCRAM for a role whose password is a SCRAM verifier.
      if (scramSecret !== undefined) return scram(ch, scramSecret, user);
      const salt = randomBytes(4);
      ch.send({ kind: 'AuthenticationMD5Password', salt });
      const md5 = passwordText(await readPassword(ch));
      if (stored === undefined || !stored.startsWith('md5') || !sameSecret(md5Response(user, stored, salt), md5)) throw failed(user);
      return;
    }
    case 'scram-sha-256':
      return scram(ch, scramSecret, user);
    case 'cert': case 'trust': case 'reject':
      throw new Error(`method ${rule.method} has no exchange`);
  }
}

const gs2Headers = new Set(['n,,', 'y,,']);

async function scram(ch: AuthChannel, known: ScramSecret | undefined, user: string): Promise<void> {
  // An unknown user still gets a full exchange, so the reply does not reveal which users exist.
  const secret: ScramSecret = known ?? makeScramVerifier(randomBytes(16).toString('hex'), { iterations: 4096 });
  ch.send({ kind: 'AuthenticationSASL', mechanisms: ['SCRAM-SHA-256'] });
  const initial = decodeSaslInitialResponse(await readPassword(ch));
  if (initial.mechanism !== 'SCRAM-SHA-256') throw protocol('client selected an invalid SASL authentication mechanism');
  if (initial.response === null) throw protocol('malformed SCRAM message (empty initial response)');
  const clientFirst = initial.response.toString('utf8');
  const m = /^([ny]),(?:a=[^,]*)?,(n=[^,]*,r=([\x21-\x2b\x2d-\x7e]+)(?:,.*)?)$/.exec(clientFirst);
  if (!m) {
    if (clientFirst.startsWith('p=')) throw protocol('channel binding is not supported by this server');
    throw protocol('malformed SCRAM message');
  }
  const gs2Header = `${m[1]},,`;
  const clientFirstBare = m[2]!;
  const nonce = `${m[3]!}${randomBytes(18).toString('base64')}`;
  const serverFirst = `r=${nonce},s=${secret.salt.toString('base64')},i=${secret.iterations}`;
  ch.send({ kind: 'AuthenticationSASLContinue', data: Buffer.from(serverFirst, 'utf8') });
  const clientFinal = (await readPassword(ch)).data.toString('utf8');
  const f = /^(c=([^,]*),r=([^,]*)(?:,[^p][^,]*)*),p=([A-Za-z0-9+/=]+)$/.exec(clientFinal);
  if (!f) throw protocol('malformed SCRAM message');
  if (!gs2Headers.has(Buffer.from(f[2]!, 'base64').toString('utf8')) || Buffer.from(f[2]!, 'base64').toString('utf8') !== gs2Header) {
    throw protocol('SCRAM channel binding check failed');
  }
  if (f[3] !== nonce) throw protocol('SCRAM nonce mismatch');
  const proof = Buffer.from(f[4]!, 'base64');
  // Node's decoder skips what is not base64 and stops at padding; PostgreSQL refuses such a proof outright.
  if (proof.toString('base64') !== f[4]) throw protocol('malformed SCRAM message (invalid proof)');
  const authMessage = `${clientFirstBare},${serverFirst},${f[1]!}`;
  const clientSignature = hmacSha256(secret.storedKey, authMessage);
  if (proof.length !== clientSignature.length) throw failed(user);
  const clientKey = Buffer.alloc(proof.length);
  for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
  if (known === undefined || !timingSafeEqual(sha256(clientKey), secret.storedKey)) throw failed(user);
  const serverSignature = hmacSha256(secret.serverKey, authMessage);
  ch.send({ kind: 'AuthenticationSASLFinal', data: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8') });
}
