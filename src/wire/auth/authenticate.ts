import { randomBytes, timingSafeEqual } from 'node:crypto';
import { FloeError } from '../../common/floe-error.js';
import type { LoginThrottle } from '../../common/login-throttle.js';
import { decodeSaslInitialResponse, passwordText, type AuthenticationRequest, type PasswordMessage } from '../messages/auth.js';
import type { FrontendMessage } from '../messages/frontend-message.js';
import { ClientGone } from '../client-gone.js';
import type { AuthProvider } from '../session-handler.js';
import { hmacSha256, makeScramVerifier, sha256, type ScramSecret } from './scram-secret.js';

/** What the authentication exchange needs from the connection. */
export interface AuthChannel {
  send(msg: AuthenticationRequest): void;
  flush(): Promise<void>;
  /** The next frontend message, or null when the client went away. */
  read(): Promise<FrontendMessage | null>;
}


function failed(user: string): FloeError {
  return new FloeError('28P01', `password authentication failed for user "${user}"`, { severity: 'FATAL' });
}

function protocol(message: string): FloeError {
  return new FloeError('08P01', message, { severity: 'FATAL' });
}

async function readPassword(ch: AuthChannel): Promise<PasswordMessage> {
  await ch.flush();
  const msg = await ch.read();
  if (msg === null) throw new ClientGone();
  if (msg.kind !== 'PasswordMessage') {
    throw protocol(`expected password response, got message type ${msg.kind}`);
  }
  return msg;
}

/**
 * Runs the method the provider chose; returns normally on success, throws a FATAL FloeError
 * otherwise. A method that checks a password asks `throttle` first (a locked-out address is
 * refused before any exchange) and tells it how the exchange ended; trust has nothing to
 * guess, so it neither counts nor is refused.
 */
export async function authenticate(ch: AuthChannel, provider: AuthProvider, user: string, remoteAddress: string, throttle?: LoginThrottle): Promise<void> {
  const method = provider.methodFor(user, remoteAddress);
  if (method === 'trust') return;
  throttle?.check(remoteAddress);
  try {
    await exchange(ch, provider, method, user);
  } catch (e) {
    // A wrong password or a malformed exchange counts; a client that hung up to ask its user for a password does not.
    if (e instanceof FloeError) throttle?.failed(remoteAddress);
    throw e;
  }
  throttle?.succeeded(remoteAddress);
}

async function exchange(ch: AuthChannel, provider: AuthProvider, method: Exclude<ReturnType<AuthProvider['methodFor']>, 'trust'>, user: string): Promise<void> {
  switch (method) {
    case 'password': {
      ch.send({ kind: 'AuthenticationCleartextPassword' });
      const password = passwordText(await readPassword(ch));
      if (password === '' || !provider.checkPassword(user, password)) throw failed(user);
      return;
    }
    case 'md5': {
      const salt = randomBytes(4);
      ch.send({ kind: 'AuthenticationMD5Password', salt });
      const md5 = passwordText(await readPassword(ch));
      if (!provider.checkPassword(user, { md5, salt })) throw failed(user);
      return;
    }
    case 'scram-sha-256':
      return scram(ch, provider, user);
    default: {
      const never: never = method;
      throw new FloeError('28000', `unsupported authentication method ${String(never)}`, { severity: 'FATAL' });
    }
  }
}

const gs2Headers = new Set(['n,,', 'y,,']);

async function scram(ch: AuthChannel, provider: AuthProvider, user: string): Promise<void> {
  const known = provider.scramSecret(user);
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
  const authMessage = `${clientFirstBare},${serverFirst},${f[1]!}`;
  const clientSignature = hmacSha256(secret.storedKey, authMessage);
  if (proof.length !== clientSignature.length) throw failed(user);
  const clientKey = Buffer.alloc(proof.length);
  for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
  if (known === undefined || !timingSafeEqual(sha256(clientKey), secret.storedKey)) throw failed(user);
  const serverSignature = hmacSha256(secret.serverKey, authMessage);
  ch.send({ kind: 'AuthenticationSASLFinal', data: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8') });
}
