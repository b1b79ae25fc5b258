import { FloeError } from './floe-error.js';

/**
 * Settings that hold a duration in milliseconds (PostgreSQL's GUC_UNIT_MS integers).
 * SET accepts a number of milliseconds or a number with a unit ('3s', '1.5min');
 * SHOW and current_setting print the largest unit that divides the value ('3s',
 * '1min', '1500ms', and '0' for zero); pg_settings shows plain milliseconds.
 */
export const DURATION_SETTINGS: ReadonlySet<string> = new Set([
  'statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout', 'idle_session_timeout', 'log_min_duration_statement',
]);

const MAX_MS = 2147483647;

/** The least value of each duration setting: 0, except where -1 means "off" (log_min_duration_statement). */
const MIN_MS: Readonly<Record<string, number>> = { log_min_duration_statement: -1 };

/** Milliseconds per unit, largest first (the order SHOW tries them in). */
const UNITS: readonly (readonly [string, number])[] = [['d', 86400000], ['h', 3600000], ['min', 60000], ['s', 1000], ['ms', 1], ['us', 0.001]];

export function isDurationSetting(name: string): boolean {
  return DURATION_SETTINGS.has(name);
}

/** A duration setting's text (as SET gives it, or as SHOW printed it) → whole milliseconds; throws 22023 as PostgreSQL does. */
export function parseDurationSetting(name: string, text: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (m === null) throw new FloeError('22023', `invalid value for parameter "${name}": "${text}"`);
  const unit = m[2]!;
  const per = unit === '' ? 1 : UNITS.find(([u]) => u === unit)?.[1];
  if (per === undefined) {
    throw new FloeError('22023', `invalid value for parameter "${name}": "${text}"`, {
      hint: 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".',
    });
  }
  // `|| 0`: a rounded -0.4 is -0, which SHOW would print as "-0".
  const ms = Math.round(Number(m[1]) * per) || 0;
  if (!Number.isFinite(ms) || Math.abs(ms) > 2 ** 31) throw new FloeError('22023', `invalid value for parameter "${name}": "${text}"`);
  const min = MIN_MS[name] ?? 0;
  if (ms < min || ms > MAX_MS) {
    throw new FloeError('22023', `${ms} ms is outside the valid range for parameter "${name}" (${min} .. ${MAX_MS})`);
  }
  return ms;
}

/** Milliseconds as SHOW prints them: '0', '1500ms', '3s', '1min', '2h', '1d'; a negative value (-1, "off") has no unit. */
export function formatDurationMs(ms: number): string {
  if (ms <= 0) return String(ms);
  for (const [unit, per] of UNITS) if (per >= 1 && ms % per === 0) return `${ms / per}${unit}`;
  return `${ms}ms`;
}

/** A duration setting's value in milliseconds; its least value, which means off (0, or -1), when unset or unreadable. */
export function durationSettingMs(settings: ReadonlyMap<string, string>, name: string): number {
  const off = MIN_MS[name] ?? 0;
  const text = settings.get(name);
  if (text === undefined) return off;
  try {
    return parseDurationSetting(name, text);
  } catch {
    return off;
  }
}
