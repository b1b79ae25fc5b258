import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { logWriterDir } from './log-locator.js';

/**
 * Naming and directory chores of a writer's segment files. A segment is named by the LSN of
 * its first byte, 20 zero-padded digits, so names sort in log order and an LSN's segment is
 * found from the names alone.
 */
export interface SegmentFile {
  readonly firstLsn: bigint;
  /** Bytes on disk when listed. */
  readonly size: number;
}

const SEGMENT_NAME = /^(\d{20})\.wal$/;

/** The first LSN a segment's file (or object) name states, or undefined for another name. */
export function parseSegmentName(name: string): bigint | undefined {
  const m = SEGMENT_NAME.exec(name);
  return m === null ? undefined : BigInt(m[1]!);
}

export function segmentFileName(firstLsn: bigint): string {
  return `${firstLsn.toString().padStart(20, '0')}.wal`;
}

/** The segment's storage key, relative to the warehouse root (what log locators hold). */
export function segmentKey(writerId: string, firstLsn: bigint): string {
  return `${logWriterDir(writerId)}/${segmentFileName(firstLsn)}`;
}

/** The writer's segments, oldest first; none when the directory does not exist. */
export async function listSegmentFiles(dir: string): Promise<SegmentFile[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const segments: SegmentFile[] = [];
  for (const name of names) {
    const firstLsn = parseSegmentName(name);
    if (firstLsn === undefined) continue;
    const stat = await fs.stat(join(dir, name));
    if (!stat.isFile()) continue;
    segments.push({ firstLsn, size: stat.size });
  }
  return segments.sort((a, b) => (a.firstLsn < b.firstLsn ? -1 : a.firstLsn > b.firstLsn ? 1 : 0));
}

/** fsyncs a directory so the entries created or removed in it survive a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes segments (the ones past a torn tail) and makes the removal durable. */
export async function removeSegmentFiles(dir: string, segments: readonly SegmentFile[]): Promise<void> {
  if (segments.length === 0) return;
  for (const s of segments) await fs.rm(join(dir, segmentFileName(s.firstLsn)), { force: true });
  await syncDirectory(dir);
}

/**
 * Creates the writer's directory if it is missing, fsyncing each directory that gained an
 * entry (the warehouse root for `log/`, `log/` for the writer), so segments created in it
 * are reachable after a crash.
 */
export async function ensureWriterDirectory(root: string, writerId: string): Promise<string> {
  const dir = join(root, logWriterDir(writerId));
  const logDir = join(dir, '..');
  if (await exists(dir)) return dir;
  const logDirIsNew = !(await exists(logDir));
  await fs.mkdir(dir, { recursive: true });
  if (logDirIsNew) await syncDirectory(root);
  await syncDirectory(logDir);
  return dir;
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
