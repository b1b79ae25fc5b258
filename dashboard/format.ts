/** Numbers as a person reads them at a glance. */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${UNITS[u]}`;
}

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US');
}

export function seconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return '–';
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 120) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** Milliseconds as a statement's time: two decimals below 10 ms, then as seconds() prints. */
export function millis(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return ms < 10 ? `${ms.toFixed(2)} ms` : seconds(ms / 1000);
}

/** Time since an ISO instant, or '–'. */
export function since(iso: string | null | undefined, now = Date.now()): string {
  return iso === null || iso === undefined ? '–' : seconds(Math.max(0, (now - Date.parse(iso)) / 1000));
}

export function time(iso: string | null | undefined): string {
  return iso === null || iso === undefined ? '–' : new Date(iso).toLocaleString('en-GB', { hour12: false });
}

export function percent(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `${Math.round(x * 100)} %`;
}
