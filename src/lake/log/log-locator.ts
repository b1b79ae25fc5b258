/**
 * Where a logged commit's rows for one (partition, node) lie: a byte range of a log
 * segment. The catalog keeps it as the data file's path (a keyed table's change file, an
 * append table's base file), `log/<writer>/<segment>.wal#<offset>+<length>`,
 * so every reader of data files finds the rows through the path it already has
 * (docs/design-notes.md, "Log store").
 */
export interface LogLocator {
  /** The segment's storage key, e.g. `log/3f2a…/00000000000000000000.wal`. */
  readonly segmentKey: string;
  /** Byte offset of the Arrow IPC stream within the segment. */
  readonly offset: number;
  readonly length: number;
}

export const LOG_DIR = 'log';

export function isLogPath(path: string): boolean {
  return path.startsWith(`${LOG_DIR}/`) && path.includes('#');
}

export function formatLogLocator(l: LogLocator): string {
  return `${l.segmentKey}#${l.offset}+${l.length}`;
}

/** undefined for a path that is not a log locator. */
export function parseLogLocator(path: string): LogLocator | undefined {
  if (!isLogPath(path)) return undefined;
  const hash = path.lastIndexOf('#');
  const plus = path.indexOf('+', hash);
  if (plus < 0) return undefined;
  const offset = Number(path.slice(hash + 1, plus));
  const length = Number(path.slice(plus + 1));
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) return undefined;
  return { segmentKey: path.slice(0, hash), offset, length };
}

/** The directory of one writer's segments. */
export function logWriterDir(writerId: string): string {
  return `${LOG_DIR}/${writerId}`;
}
