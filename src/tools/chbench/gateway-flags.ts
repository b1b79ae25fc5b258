import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../cli/main.ts', import.meta.url));

/** True when this tree's `floe` usage text mentions `flag` (so a flag another part adds is passed only once it exists). */
export function serveSupportsFlag(flag: string): boolean {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'help'], { encoding: 'utf8', timeout: 60_000 });
  return `${r.stdout}${r.stderr}`.includes(flag);
}
