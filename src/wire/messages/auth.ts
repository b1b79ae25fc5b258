import { FloeError } from '../../common/floe-error.js';
import { BodyReader } from './body-reader.js';

/**
 * Authentication messages. The frontend's 'p' message means a password,
 * a SASLInitialResponse or a SASLResponse depending on what the server asked,
 * so it is decoded as raw bytes and interpreted by the exchange in progress.
 */
export interface PasswordMessage {
  readonly kind: 'PasswordMessage';
  readonly data: Buffer;
}

export interface SaslInitialResponse {
  readonly mechanism: string;
  readonly response: Buffer | null;
}

export type AuthenticationRequest =
  | { readonly kind: 'AuthenticationOk' }
  | { readonly kind: 'AuthenticationCleartextPassword' }
  | { readonly kind: 'AuthenticationMD5Password'; readonly salt: Buffer }
  | { readonly kind: 'AuthenticationSASL'; readonly mechanisms: readonly string[] }
  | { readonly kind: 'AuthenticationSASLContinue'; readonly data: Buffer }
  | { readonly kind: 'AuthenticationSASLFinal'; readonly data: Buffer };

/** Authentication request codes, as in PostgreSQL's pqcomm.h. */
export const authCodes: Readonly<Record<AuthenticationRequest['kind'], number>> = {
  AuthenticationOk: 0,
  AuthenticationCleartextPassword: 3,
  AuthenticationMD5Password: 5,
  AuthenticationSASL: 10,
  AuthenticationSASLContinue: 11,
  AuthenticationSASLFinal: 12,
};

export function decodePasswordMessage(body: Buffer): PasswordMessage {
  return { kind: 'PasswordMessage', data: body };
}

/** A password or md5 response: one NUL-terminated string. */
export function passwordText(msg: PasswordMessage): string {
  const r = new BodyReader(msg.data, 'password');
  const s = r.cstring();
  r.end();
  return s;
}

export function decodeSaslInitialResponse(msg: PasswordMessage): SaslInitialResponse {
  const r = new BodyReader(msg.data, 'SASLInitialResponse');
  const mechanism = r.cstring();
  const len = r.int32();
  if (len < -1) throw new FloeError('08P01', 'invalid SASL initial response length', { severity: 'FATAL' });
  const response = len === -1 ? null : Buffer.from(r.bytes(len));
  r.end();
  return { mechanism, response };
}
