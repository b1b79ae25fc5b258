/**
 * The UTC offset, in seconds east of Greenwich, of an IANA time zone at an
 * instant, from the runtime's tz database (Intl). Unknown zone names fall back
 * to UTC rather than failing a result.
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

export function timeZoneOffsetSeconds(timeZone: string, epochSeconds: number): number {
  const tz = timeZone.trim();
  const upper = tz.toUpperCase();
  if (upper === 'UTC' || upper === 'GMT' || upper === 'Z' || upper === 'ETC/UTC' || upper === 'UCT') return 0;
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
