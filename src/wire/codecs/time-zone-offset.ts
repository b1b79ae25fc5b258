/**
 * The UTC offset, in seconds east of Greenwich, of a TimeZone setting at an
 * instant: IANA names through the runtime's tz database (Intl), POSIX-style
 * fixed offsets by hand. Unknown names fall back to UTC rather than failing a result.
 */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone, hourCycle: 'h23', era: 'short',
        year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    } catch {
      f = null;
    }
    formatters.set(timeZone, f);
  }
  return f;
}

const maxDateMs = 8.64e15;

/**
 * POSIX-style fixed zones as PostgreSQL reports them: an optional name ("UTC", "<+03>") and an
 * offset counted positive WEST of Greenwich, so "UTC+3" and "<+03>-03" are three hours apart.
 */
const posixZone = /^(?:<[^>]*>|[A-Za-z]{3,})?([+-]?)(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$/;

/**
 * Offsets per (zone, hour): Intl is slow per call and offsets change rarely. An hour is
 * cached only when its start and end agree, so an hour holding a transition is never cached.
 */
const hourCache = new Map<string, number>();
const hourCacheLimit = 50000;

export function timeZoneOffsetSeconds(timeZone: string, epochSeconds: number): number {
  const hour = Math.floor(epochSeconds / 3600);
  const key = `${timeZone}\u0000${hour}`;
  const cached = hourCache.get(key);
  if (cached !== undefined) return cached;
  const start = uncachedOffset(timeZone, hour * 3600);
  if (start === uncachedOffset(timeZone, hour * 3600 + 3599)) {
    if (hourCache.size >= hourCacheLimit) hourCache.clear();
    hourCache.set(key, start);
    return start;
  }
  return uncachedOffset(timeZone, epochSeconds);
}

function uncachedOffset(timeZone: string, epochSeconds: number): number {
  const tz = timeZone.trim();
  const upper = tz.toUpperCase();
  if (upper === 'UTC' || upper === 'GMT' || upper === 'Z' || upper === 'ETC/UTC' || upper === 'UCT') return 0;
  const posix = posixZone.exec(tz);
  if (posix) {
    const west = Number(posix[2]) * 3600 + Number(posix[3] ?? 0) * 60 + Number(posix[4] ?? 0);
    return posix[1] === '-' ? west : -west;
  }
  const f = formatterFor(tz);
  if (f === null) return 0;
  const ms = Math.max(-maxDateMs + 86400000, Math.min(maxDateMs - 86400000, epochSeconds * 1000));
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const d = new Date(0);
  d.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  d.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return Math.round((d.getTime() - Math.floor(ms / 1000) * 1000) / 1000);
}
