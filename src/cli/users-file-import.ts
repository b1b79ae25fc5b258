import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_ROLE_ATTRIBUTES, type RoleCatalog } from '../lake/index.js';

/** Where Floe before roles in the catalog kept its users (`floe user add` wrote it). */
export function usersFilePath(dataDir: string): string {
  return join(dataDir, 'users.json');
}

interface LegacyUser { readonly scram: string; readonly md5?: string; readonly method?: string; readonly superuser?: boolean }

/**
 * Moves a warehouse's old users.json into the catalog once: each user becomes a login role
 * with its verifier (md5 for users configured with md5), a superuser if it was one, unless a
 * role of that name exists. The file is then renamed `users.json.imported`, so it is never
 * read again and cannot drift from the catalog. Returns the names imported.
 */
export function importUsersFile(dataDir: string, roles: RoleCatalog): string[] {
  const path = usersFilePath(dataDir);
  if (!existsSync(path)) return [];
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { users?: Record<string, LegacyUser> };
  const imported: string[] = [];
  for (const [name, u] of Object.entries(parsed.users ?? {})) {
    if (roles.get(name) !== undefined) continue;
    roles.create(name, {
      ...DEFAULT_ROLE_ATTRIBUTES, canLogin: true, superuser: u.superuser === true,
      password: u.method === 'md5' && u.md5 !== undefined ? u.md5 : u.scram,
    });
    imported.push(name);
  }
  renameSync(path, `${path}.imported`);
  return imported;
}
