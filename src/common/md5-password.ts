import { createHash } from 'node:crypto';

function md5Hex(data: string | Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

/** The stored form PostgreSQL keeps for md5 users: "md5" + md5(password || user). */
export function md5StoredPassword(user: string, password: string): string {
  return `md5${md5Hex(password + user)}`;
}

/**
 * What a client sends back for AuthenticationMD5Password: "md5" + md5(md5(password || user) || salt).
 * Accepts either the plain password or the stored "md5…" form.
 */
export function md5Response(user: string, passwordOrStored: string, salt: Buffer): string {
  const inner = /^md5[0-9a-f]{32}$/.test(passwordOrStored) ? passwordOrStored.slice(3) : md5Hex(passwordOrStored + user);
  return `md5${md5Hex(Buffer.concat([Buffer.from(inner, 'utf8'), salt]))}`;
}
