import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../common/process-alive.js';

/** Where sessions keep their temporary tables: `<warehouse>/temp/`. */
function tempRoot(warehousePath: string): string {
  return join(warehousePath, 'temp');
}

/** One session's private warehouse directory: `<warehouse>/temp/<os pid>-<session pid>`. */
export function tempDirectoryFor(warehousePath: string, processId: number): string {
  return join(tempRoot(warehousePath), `${process.pid}-${processId}`);
}

export async function removeTempDirectory(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

let swept = false;

/**
 * Deletes what sessions of dead processes left (a crash skips their cleanup), once per
 * process. Nothing reads those directories but the session that made them, so this only
 * frees disk; several processes may share the warehouse, so a live one's are kept.
 */
export async function sweepDeadSessionDirectories(warehousePath: string): Promise<void> {
  if (swept) return;
  swept = true;
  const root = tempRoot(warehousePath);
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const name of entries) {
    const pid = Number(/^(\d+)-\d+$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid)) await removeTempDirectory(join(root, name));
  }
}
