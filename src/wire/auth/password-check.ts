import { timingSafeEqual } from 'node:crypto';
import { md5StoredPassword } from '../../common/md5-password.js';
import { makeScramVerifier, parseScramVerifier, type ScramSecret } from '../../common/scram-secret.js';
import type { LoginRole } from './auth-provider.js';

/*
 * A role's password, checked the one way every login checks it (the wire's exchanges and
 * the management API's HTTP Basic): the verifier must not have expired, and what is compared
 * is compared in constant time, so neither the answer's time nor its words tell more than
 * yes or no.
 */

/** The role's verifier, unless it has none or its VALID UNTIL has passed: then every password check fails. */
export function usableVerifier(role: Pick<LoginRole, 'password' | 'validUntilMicros'> | undefined): string | undefined {
  if (role?.password == null) return undefined;
  if (role.validUntilMicros !== null && role.validUntilMicros < BigInt(Date.now()) * 1000n) return undefined;
  return role.password;
}

/** Two secrets (hashes, responses) equal, in time that depends on their length only. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A cleartext password against a SCRAM verifier: both keys derived from it must equal the stored ones. */
export function matchesScram(secret: ScramSecret, password: string): boolean {
  const derived = makeScramVerifier(password, { iterations: secret.iterations, salt: secret.salt });
  return timingSafeEqual(derived.storedKey, secret.storedKey) && timingSafeEqual(derived.serverKey, secret.serverKey);
}

/** A cleartext password against a stored verifier: SCRAM-SHA-256's keys, or else the md5 hash of password and user. */
export function matchesVerifier(stored: string, user: string, password: string): boolean {
  const scram = parseScramVerifier(stored);
  return scram !== undefined ? matchesScram(scram, password) : sameSecret(md5StoredPassword(user, password), stored);
}

/** `role` (logging in as `user`) has a password that has not expired, and `password` is it. */
export function checkPassword(role: LoginRole | undefined, user: string, password: string): boolean {
  const stored = usableVerifier(role);
  return stored !== undefined && matchesVerifier(stored, user, password);
}
