import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's shared/ folder (captured client traffic and the like). CI lays it
 * beside the clone; a developer's checkout may sit elsewhere, so FLOE_SHARED_DIR
 * can point at it.
 */
export function sharedDir(): string {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const candidates = [process.env.FLOE_SHARED_DIR, resolve(repo, '../shared'), '/work/shared'];
  const found = candidates.find((c) => c !== undefined && c !== '' && existsSync(resolve(c, 'client-queries')));
  if (found === undefined) {
    throw new Error(`shared/ not found (looked in ${candidates.filter(Boolean).join(', ')}); set FLOE_SHARED_DIR`);
  }
  return found;
}
