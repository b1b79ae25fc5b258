import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatScramVerifier, makeScramVerifier, parseScramVerifier } from '../wire/index.js';
import type { AuthProvider, ScramSecret } from '../wire/index.js';

/** `<warehouse>/users.json`: { "users": { "<name>": { "scram": "SCRAM-SHA-256$…" } } }. */
export interface UsersFile {
  readonly users: Record<string, { readonly scram: string }>;
}

export function usersFilePath(dataDir: string): string {
  return join(dataDir, 'users.json');
}

export function readUsersFile(path: string): UsersFile {
  if (!existsSync(path)) return { users: {} };
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<UsersFile>;
  return { users: parsed.users ?? {} };
}

/** Adds or replaces a user's SCRAM-SHA-256 verifier; the password itself is never stored. */
export function addUser(path: string, name: string, password: string): void {
  const file = readUsersFile(path);
  file.users[name] = { scram: formatScramVerifier(makeScramVerifier(password)) };
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

function isLoopback(address: string): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || address.startsWith('127.') || address === 'localhost';
}

/**
 * Issue 3's policy: trust on loopback for users without a password;
 * SCRAM-SHA-256 for users with one, and always for non-loopback peers.
 */
export function usersAuthProvider(path: string): AuthProvider {
  const secrets = new Map<string, ScramSecret>();
  for (const [name, u] of Object.entries(readUsersFile(path).users)) {
    const s = parseScramVerifier(u.scram);
    if (s) secrets.set(name, s);
  }
  return {
    methodFor(user, remoteAddress) {
      if (secrets.has(user) || !isLoopback(remoteAddress)) return 'scram-sha-256';
      return 'trust';
    },
    scramSecret: (user) => secrets.get(user),
    checkPassword: () => false,
  };
}
