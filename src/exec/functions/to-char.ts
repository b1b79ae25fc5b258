import { civilFromDays, daysFromCivil, MICROS_PER_DAY } from '../types/datetime.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function casePattern(word: string, pattern: string): string {
  if (pattern === pattern.toUpperCase()) return word.toUpperCase();
  if (pattern[1] === pattern[1]!.toLowerCase() && pattern[0] === pattern[0]!.toUpperCase()) return word;
  return word.toLowerCase();
}

/** to_char for timestamps: the common template patterns; text in double quotes is copied. */
export function toCharTimestamp(local: bigint, fmt: string, offsetSecs?: number, zone?: string): string {
  let days = local / MICROS_PER_DAY;
  let tod = local % MICROS_PER_DAY;
  if (tod < 0n) { tod += MICROS_PER_DAY; days -= 1n; }
  const dn = Number(days);
  const { y, m, d } = civilFromDays(dn);
  const h = Number(tod / 3_600_000_000n);
  const mi = Number((tod / 60_000_000n) % 60n);
  const s = Number((tod / 1_000_000n) % 60n);
  const us = Number(tod % 1_000_000n);
  const dow = ((dn % 7) + 7 + 4) % 7;
  const doy = dn - daysFromCivil(y, 1, 1) + 1;
  let out = '';
  let i = 0;
  let fm = false;
  const num = (v: number, w: number) => (fm ? String(v) : String(v).padStart(w, '0'));
  const pats: [string, () => string][] = [
    ['YYYY', () => num(y, 4)], ['YYY', () => num(y % 1000, 3)], ['YY', () => num(y % 100, 2)], ['Y', () => String(y % 10)],
    ['HH24', () => num(h, 2)], ['HH12', () => num(h % 12 === 0 ? 12 : h % 12, 2)], ['HH', () => num(h % 12 === 0 ? 12 : h % 12, 2)],
    ['MI', () => num(mi, 2)], ['SSSS', () => String(h * 3600 + mi * 60 + s)], ['SS', () => num(s, 2)],
    ['MS', () => num(Math.floor(us / 1000), 3)], ['US', () => num(us, 6)],
    ['AM', () => (h < 12 ? 'AM' : 'PM')], ['PM', () => (h < 12 ? 'AM' : 'PM')], ['am', () => (h < 12 ? 'am' : 'pm')], ['pm', () => (h < 12 ? 'am' : 'pm')],
    ['A.M.', () => (h < 12 ? 'A.M.' : 'P.M.')], ['P.M.', () => (h < 12 ? 'A.M.' : 'P.M.')],
    ['MONTH', () => (fm ? MONTHS[m - 1]!.toUpperCase() : MONTHS[m - 1]!.toUpperCase().padEnd(9))],
    ['Month', () => (fm ? MONTHS[m - 1]! : MONTHS[m - 1]!.padEnd(9))],
    ['month', () => (fm ? MONTHS[m - 1]!.toLowerCase() : MONTHS[m - 1]!.toLowerCase().padEnd(9))],
    ['MON', () => MONTHS[m - 1]!.slice(0, 3).toUpperCase()], ['Mon', () => MONTHS[m - 1]!.slice(0, 3)], ['mon', () => MONTHS[m - 1]!.slice(0, 3).toLowerCase()],
    ['MM', () => num(m, 2)],
    ['DAY', () => (fm ? DAYS[dow]!.toUpperCase() : DAYS[dow]!.toUpperCase().padEnd(9))],
    ['Day', () => (fm ? DAYS[dow]! : DAYS[dow]!.padEnd(9))], ['day', () => (fm ? DAYS[dow]!.toLowerCase() : DAYS[dow]!.toLowerCase().padEnd(9))],
    ['DY', () => DAYS[dow]!.slice(0, 3).toUpperCase()], ['Dy', () => DAYS[dow]!.slice(0, 3)], ['dy', () => DAYS[dow]!.slice(0, 3).toLowerCase()],
    ['DDD', () => num(doy, 3)], ['DD', () => num(d, 2)], ['D', () => String(dow + 1)], ['ID', () => String(dow === 0 ? 7 : dow)],
    ['Q', () => String(Math.floor((m - 1) / 3) + 1)],
    ['TZH', () => { const o = offsetSecs ?? 0; return (o < 0 ? '-' : '+') + String(Math.floor(Math.abs(o) / 3600)).padStart(2, '0'); }],
    ['TZM', () => String(Math.floor((Math.abs(offsetSecs ?? 0) % 3600) / 60)).padStart(2, '0')],
    ['TZ', () => (zone ?? '').toUpperCase()], ['tz', () => (zone ?? '').toLowerCase()],
  ];
  while (i < fmt.length) {
    if (fmt.startsWith('FM', i)) { fm = true; i += 2; continue; }
    if (fmt[i] === '"') {
      const end = fmt.indexOf('"', i + 1);
      out += fmt.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? fmt.length : end + 1;
      continue;
    }
    if (fmt[i] === '\\' && i + 1 < fmt.length) { out += fmt[i + 1]; i += 2; continue; }
    const p = pats.find(([k]) => fmt.startsWith(k, i));
    if (p) {
      out += p[1]();
      i += p[0].length;
      fm = false;
      continue;
    }
    out += fmt[i];
    i++;
  }
  void casePattern;
  return out;
}

/** to_char for numbers: 9, 0, '.', 'D', ',', 'G', 'S', 'FM', 'MI', 'PR' basics. */
export function toCharNumber(value: string, fmt: string): string {
  let f = fmt;
  let fm = false;
  if (/^FM/i.test(f)) { fm = true; f = f.slice(2); }
  const neg = value.startsWith('-');
  const abs = neg ? value.slice(1) : value;
  const dot = f.search(/[.D]/);
  const intFmt = dot < 0 ? f : f.slice(0, dot);
  const fracFmt = dot < 0 ? '' : f.slice(dot + 1);
  const fracDigits = (fracFmt.match(/[09]/g) ?? []).length;
  const n = Number(abs);
  const fixed = n.toFixed(fracDigits);
  let [ip, fp] = fixed.split('.');
  const intSlots = (intFmt.match(/[09]/g) ?? []).length;
  if (ip!.length > intSlots) {
    return (neg || !fm ? (neg ? '-' : ' ') : '') + '#'.repeat(intSlots) + (fracDigits ? '.' + '#'.repeat(fracDigits) : '');
  }
  // Fill integer slots from the right.
  const digits = ip === '0' && !/0/.test(intFmt) ? '' : ip!;
  let di = digits.length - 1;
  let intOut = '';
  const firstZero = intFmt.indexOf('0');
  for (let k = intFmt.length - 1; k >= 0; k--) {
    const c = intFmt[k]!;
    if (c === '9' || c === '0') {
      if (di >= 0) intOut = digits[di--] + intOut;
      else if (c === '0' || (firstZero >= 0 && k >= firstZero)) intOut = '0' + intOut;
      else intOut = (fm ? '' : ' ') + intOut;
    } else if (c === ',' || c === 'G') {
      intOut = (di >= 0 ? ',' : fm ? '' : ' ') + intOut;
    } else if (c !== 'S' && c !== 'M' && c !== 'I' && c !== 'P' && c !== 'R') {
      intOut = c + intOut;
    }
  }
  if (ip === '0' && digits === '' && fracDigits > 0 && !fm) intOut = intOut.replace(/ $/, '0');
  let out = intOut;
  if (fracDigits > 0 || dot >= 0) out += '.' + (fp ?? '');
  if (fm) out = out.replace(/^\s+/, '');
  if (/S/.test(f)) return (neg ? '-' : '+') + out.trimStart();
  if (/MI/.test(f)) return out + (neg ? '-' : ' ');
  if (/PR/.test(f)) return neg ? `<${out.trim()}>` : ` ${out} `;
  const signed = (neg ? '-' : fm ? '' : ' ') + out.trimStart();
  return fm ? signed : signed.padStart(out.length + 1, ' ');
}
