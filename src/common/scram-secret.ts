import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** A SCRAM-SHA-256 verifier (RFC 5802 / 7677), as PostgreSQL stores it in pg_authid.rolpassword. */
export interface ScramSecret {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

export function hmacSha256(key: Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/**
 * Builds a verifier with PostgreSQL's defaults (4096 iterations, 16-byte salt).
 * PostgreSQL applies SASLprep to the password; NFKC normalization covers it for
 * the passwords people type (ASCII is unchanged either way).
 */
export function makeScramVerifier(password: string, opts: { iterations?: number; salt?: Buffer } = {}): ScramSecret {
  const iterations = opts.iterations ?? 4096;
  const salt = opts.salt ?? randomBytes(16);
  const salted = pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = hmacSha256(salted, 'Client Key');
  return { iterations, salt, storedKey: sha256(clientKey), serverKey: hmacSha256(salted, 'Server Key') };
}

/** PostgreSQL's text form: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, base64 parts. */
export function formatScramVerifier(s: ScramSecret): string {
  return `SCRAM-SHA-256$${s.iterations}:${s.salt.toString('base64')}$${s.storedKey.toString('base64')}:${s.serverKey.toString('base64')}`;
}

export function parseScramVerifier(text: string): ScramSecret | undefined {
  const m = /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(text.trim());
  if (!m) return undefined;
  const storedKey = Buffer.from(m[3]!, 'base64');
  const serverKey = Buffer.from(m[4]!, 'base64');
  if (storedKey.length !== 32 || serverKey.length !== 32) return undefined;
  return { iterations: Number(m[1]), salt: Buffer.from(m[2]!, 'base64'), storedKey, serverKey };
}
