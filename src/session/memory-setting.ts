import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';

/** The setting that bounds one query's working set (sort buffers, hash tables). */
export const QUERY_MEMORY_LIMIT = 'floe.query_memory_limit';
export const DEFAULT_QUERY_MEMORY_LIMIT = '1GB';

/** Below this a query cannot hold even one batch; PostgreSQL's work_mem floor is 64kB, ours is one batch's worth. */
const MIN_BYTES = 1024 * 1024;

const UNITS: Readonly<Record<string, number>> = {
  B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4,
};

/**
 * A memory setting's text → bytes, with PostgreSQL's memory-unit spelling
 * (case-sensitive units, kB when no unit is given as for work_mem).
 */
export function parseMemorySetting(name: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  const unit = m?.[2] === '' ? 'kB' : m?.[2];
  const factor = unit === undefined ? undefined : UNITS[unit];
  if (!m || factor === undefined) {
    throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${text}"`, {
      hint: m ? 'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".' : undefined,
    });
  }
  const bytes = Math.round(Number(m[1]) * factor);
  if (bytes < MIN_BYTES || !Number.isSafeInteger(bytes)) {
    throw new FloeError(SqlState.invalidParameterValue, `${Math.floor(bytes / 1024)} kB is outside the valid range for parameter "${name}" (${MIN_BYTES / 1024} kB .. ${Math.floor(Number.MAX_SAFE_INTEGER / 1024)} kB)`);
  }
  return bytes;
}
