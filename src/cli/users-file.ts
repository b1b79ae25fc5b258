import { timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../common/is-loopback.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatScramVerifier, makeScramVerifier, md5Response, md5StoredPassword, parseScramVerifier } from '../wire/index.js';
import type { AuthProvider, ScramSecret } from '../wire/index.js';
import type { HttpCredentials } from '../http/index.js';

export type AuthMethod = 'scram-sha-256' | 'md5' | 'password';

/**
 * `<warehouse>/users.json`:
 * { "users": { "<name>": { "scram": "SCRAM-SHA-256$…", "md5"?: "md5…", "method"?: "scram-sha-256" | "md5" | "password" } } }.
 * The password itself is never stored; md5 and cleartext are used only for users configured with them.
 */
export interface UserEntry {
  readonly scram: string;
  readonly md5?: string;
  readonly method?: AuthMethod;
  /** May take admin actions in the management API (`floe user add --superuser`). */
  readonly superuser?: boolean;
}

/** The bootstrap superuser's name (pg_authid's role 10): loopback's trusted user, and a superuser when added with a password too. */
export const BOOTSTRAP_SUPERUSER = 'floe';

export interface UsersFile {
  readonly users: Record<string, UserEntry>;
}

export function usersFilePath(dataDir: string): string {
  return join(dataDir, 'users.json');
}

export function readUsersFile(path: string): UsersFile {
  if (!existsSync(path)) return { users: {} };
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<UsersFile>;
  return { users: parsed.users ?? {} };
}

/** Adds or replaces a user. */
export function addUser(path: string, name: string, password: string, method: AuthMethod = 'scram-sha-256', opts: { superuser?: boolean } = {}): void {
  const file = readUsersFile(path);
  file.users[name] = {
    scram: formatScramVerifier(makeScramVerifier(password)),
    ...(method === 'md5' ? { md5: md5StoredPassword(name, password) } : {}),
    ...(method === 'scram-sha-256' ? {} : { method }),
    ...(opts.superuser === true ? { superuser: true } : {}),
  };
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * A cleartext password (HTTP Basic, the wire's cleartext method) checked against the SCRAM
 * verifier: both keys derived from it must equal the stored StoredKey and ServerKey (no plain
 * password is kept).
 */
function matchesScram(secret: ScramSecret, password: string): boolean {
  const derived = makeScramVerifier(password, { iterations: secret.iterations, salt: secret.salt });
  return timingSafeEqual(derived.storedKey, secret.storedKey) && timingSafeEqual(derived.serverKey, secret.serverKey);
}

/** The users whose verifier parses, by name. */
function loadUsers(path: string): Map<string, { secret: ScramSecret; entry: UserEntry }> {
  const users = new Map<string, { secret: ScramSecret; entry: UserEntry }>();
  for (const [name, entry] of Object.entries(readUsersFile(path).users)) {
    const secret = parseScramVerifier(entry.scram);
    if (secret) users.set(name, { secret, entry });
  }
  return users;
}

/**
 * Issue 3's policy: trust on loopback for users without a password; a user's
 * configured method (SCRAM-SHA-256 unless md5 or cleartext was chosen) when it
 * has one; and always SCRAM-SHA-256 for non-loopback peers.
 */
export function usersAuthProvider(path: string): AuthProvider {
  const users = loadUsers(path);
  return {
    methodFor(user, remoteAddress) {
      const u = users.get(user);
      if (!isLoopback(remoteAddress)) return 'scram-sha-256';
      if (!u) return 'trust';
      return u.entry.method ?? 'scram-sha-256';
    },
    scramSecret: (user) => users.get(user)?.secret,
    checkPassword(user, password) {
      const u = users.get(user);
      if (!u) return false;
      if (typeof password === 'string') return matchesScram(u.secret, password);
      if (u.entry.md5 === undefined) return false;
      return md5Response(user, u.entry.md5, password.salt) === password.md5;
    },
  };
}

/** The same users for the management API's HTTP Basic: the password against the SCRAM verifier; superusers by flag or name. */
export function usersHttpCredentials(path: string): HttpCredentials {
  const users = loadUsers(path);
  return {
    verify(user, password) {
      const u = users.get(user);
      return u !== undefined && matchesScram(u.secret, password);
    },
    isSuperuser: (user) => user === BOOTSTRAP_SUPERUSER || users.get(user)?.entry.superuser === true,
  };
}
