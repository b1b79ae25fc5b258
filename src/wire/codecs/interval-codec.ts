import { FloeError } from '../../common/floe-error.js';
import type { Interval } from '../../common/sql-type.js';
import type { TypeCodec } from './type-codec.js';

/** interval with IntervalStyle 'postgres' text and PostgreSQL's binary form (int64 µs, int32 days, int32 months). */
const usPerHour = 3600000000n;
const usPerMinute = 60000000n;
const usPerSecond = 1000000n;

export function formatInterval(iv: Interval): string {
  const parts: string[] = [];
  let isZero = true;
  let isBefore = false;
  const add = (value: number, unit: string): void => {
    if (value === 0) return;
    parts.push(`${isBefore && value > 0 ? '+' : ''}${value} ${unit}${value !== 1 ? 's' : ''}`);
    isBefore = value < 0;
    isZero = false;
  };
  add(Math.trunc(iv.months / 12), 'year');
  add(iv.months % 12, 'mon');
  add(iv.days, 'day');
  const us = iv.micros;
  if (isZero || us !== 0n) {
    const minus = us < 0n;
    const a = minus ? -us : us;
    const h = a / usPerHour;
    const m = (a / usPerMinute) % 60n;
    const s = (a / usPerSecond) % 60n;
    const f = a % usPerSecond;
    let t = `${minus ? '-' : isBefore ? '+' : ''}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
    if (f !== 0n) t += `.${String(f).padStart(6, '0').replace(/0+$/, '')}`;
    parts.push(t);
  }
  return parts.join(' ');
}

function syntax(text: string): FloeError {
  return new FloeError('22007', `invalid input syntax for type interval: "${text}"`);
}

interface Acc { months: number; days: number; micros: number }

const unitScale: Record<string, (n: number, acc: Acc) => void> = {};
function unit(names: string[], apply: (n: number, acc: Acc) => void): void {
  for (const n of names) unitScale[n] = apply;
}
// Fractions cascade downwards the way PostgreSQL does: months → 30 days, days → 24 hours.
function addMonths(n: number, acc: Acc): void {
  const whole = Math.trunc(n);
  acc.months += whole;
  addDays((n - whole) * 30, acc);
}
function addDays(n: number, acc: Acc): void {
  const whole = Math.trunc(n);
  acc.days += whole;
  acc.micros += (n - whole) * 86400e6;
}
unit(['millennium', 'millennia', 'millenniums', 'mil', 'mils'], (n, a) => addMonths(n * 12000, a));
unit(['century', 'centuries', 'cent', 'c'], (n, a) => addMonths(n * 1200, a));
unit(['decade', 'decades', 'dec', 'decs'], (n, a) => addMonths(n * 120, a));
unit(['year', 'years', 'y', 'yr', 'yrs'], (n, a) => { a.months += Math.trunc(n * 12); });
unit(['month', 'months', 'mon', 'mons'], addMonths);
unit(['week', 'weeks', 'w'], (n, a) => addDays(n * 7, a));
unit(['day', 'days', 'd'], addDays);
unit(['hour', 'hours', 'h', 'hr', 'hrs'], (n, a) => { a.micros += n * 3600e6; });
unit(['minute', 'minutes', 'm', 'min', 'mins'], (n, a) => { a.micros += n * 60e6; });
unit(['second', 'seconds', 's', 'sec', 'secs'], (n, a) => { a.micros += n * 1e6; });
unit(['millisecond', 'milliseconds', 'ms', 'msec', 'msecs'], (n, a) => { a.micros += n * 1e3; });
unit(['microsecond', 'microseconds', 'us', 'usec', 'usecs'], (n, a) => { a.micros += n; });

function parseIso(text: string, body: string): Acc {
  const m = /^P(?:([-\d.]+)Y)?(?:([-\d.]+)M)?(?:([-\d.]+)W)?(?:([-\d.]+)D)?(?:T(?:([-\d.]+)H)?(?:([-\d.]+)M)?(?:([-\d.]+)S)?)?$/i.exec(body);
  if (!m || body.length < 2) throw syntax(text);
  const acc: Acc = { months: 0, days: 0, micros: 0 };
  const num = (s: string | undefined): number => {
    if (s === undefined) return 0;
    const n = Number(s);
    if (!Number.isFinite(n)) throw syntax(text);
    return n;
  };
  addMonths(num(m[1]) * 12, acc);
  addMonths(num(m[2]), acc);
  addDays(num(m[3]) * 7, acc);
  addDays(num(m[4]), acc);
  acc.micros += num(m[5]) * 3600e6 + num(m[6]) * 60e6 + num(m[7]) * 1e6;
  return acc;
}

export function parseInterval(text: string): Interval {
  let body = text.trim();
  if (body === '') throw syntax(text);
  let acc: Acc;
  if (/^P/i.test(body)) acc = parseIso(text, body);
  else {
    acc = { months: 0, days: 0, micros: 0 };
    if (body.startsWith('@')) body = body.slice(1).trim();
    const tokens = body.toLowerCase().split(/\s+/);
    let ago = false;
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i]!;
      if (tok === 'ago' && i === tokens.length - 1) {
        ago = true;
        continue;
      }
      const time = /^([+-])?(\d+):(\d{1,2})(?::(\d{1,2})(\.\d*)?)?$/.exec(tok);
      if (time) {
        const sign = time[1] === '-' ? -1 : 1;
        const secs = Number(time[2]) * 3600 + Number(time[3]) * 60 + Number(time[4] ?? 0) + Number(time[5] ?? 0);
        acc.micros += sign * secs * 1e6;
        continue;
      }
      const numUnit = /^([+-]?(?:\d+\.?\d*|\.\d+))([a-z]*)$/.exec(tok);
      if (!numUnit) throw syntax(text);
      const n = Number(numUnit[1]);
      let u = numUnit[2]!;
      if (u === '') {
        const next = tokens[i + 1];
        if (next !== undefined && unitScale[next] !== undefined) {
          u = next;
          i++;
        }
      }
      if (u === '') acc.micros += n * 1e6;
      else {
        const apply = unitScale[u];
        if (apply === undefined) throw syntax(text);
        apply(n, acc);
      }
    }
    if (ago) acc = { months: -acc.months || 0, days: -acc.days || 0, micros: -acc.micros || 0 };
  }
  if (!Number.isFinite(acc.micros) || Math.abs(acc.months) > 0x7fffffff || Math.abs(acc.days) > 0x7fffffff) {
    throw new FloeError('22008', `interval out of range`);
  }
  return { months: acc.months, days: acc.days, micros: BigInt(Math.round(acc.micros)) };
}

function asInterval(v: unknown): Interval {
  if (typeof v === 'object' && v !== null && 'months' in v && 'days' in v && 'micros' in v) {
    const iv = v as { months: number; days: number; micros: bigint | number };
    return { months: iv.months, days: iv.days, micros: typeof iv.micros === 'bigint' ? iv.micros : BigInt(Math.trunc(iv.micros)) };
  }
  throw new FloeError('XX000', `cannot encode ${typeof v} as interval`);
}

export const intervalCodec: TypeCodec = {
  oid: 1186,
  name: 'interval',
  encodeText: (v) => formatInterval(asInterval(v)),
  encodeBinary: (v) => {
    const iv = asInterval(v);
    const b = Buffer.alloc(16);
    b.writeBigInt64BE(iv.micros, 0);
    b.writeInt32BE(iv.days, 8);
    b.writeInt32BE(iv.months, 12);
    return b;
  },
  decodeText: (t) => parseInterval(t),
  decodeBinary: (b) => {
    if (b.length !== 16) throw new FloeError('22P03', 'incorrect binary data format for type interval');
    return { micros: b.readBigInt64BE(0), days: b.readInt32BE(8), months: b.readInt32BE(12) };
  },
};
