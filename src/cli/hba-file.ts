import { readFileSync } from 'node:fs';
import { defaultHbaFile, parseHbaFile, type HbaFileResult } from '../wire/index.js';
import { UsageError } from '../tools/command-line.js';

/**
 * The rules `floe serve` checks connections against: `--hba FILE` in pg_hba.conf's format, or
 * the built-in default for `superuser`. A file with any bad line stops the start, as a bad
 * pg_hba.conf stops PostgreSQL: a half-read rules file could let in whom a bad line meant to keep out.
 */
export function loadHbaFile(path: string | undefined, superuser: string, usage: string): HbaFileResult {
  if (path === undefined) return defaultHbaFile(superuser);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--hba: could not read "${path}": ${(e as Error).message}`, usage);
  }
  const parsed = parseHbaFile(text, path);
  if (parsed.errors.length > 0) throw new UsageError(`--hba: "${path}" has errors:\n  ${parsed.errors.join('\n  ')}`, usage);
  return parsed;
}
