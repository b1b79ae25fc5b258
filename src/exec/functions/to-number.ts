import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatDecimal, parseDecimal } from '../types/numeric.js';

/** The template patterns to_number reads, longest first. */
const PATTERNS = ['FM', 'MI', 'PL', 'SG', 'PR', '9', '0', 'D', '.', 'G', ',', 'S', 'L'] as const;

function tokens(fmt: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < fmt.length;) {
    const p = PATTERNS.find((x) => fmt.slice(i, i + x.length).toUpperCase() === x);
    if (p === undefined) { out.push(fmt[i]!); i++; } else { out.push(p); i += p.length; }
  }
  return out;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * to_number(text, format) for the numeric template patterns: digit positions
 * (9, 0), the decimal point (D or .), group separators (G or ,), signs (S, MI,
 * PL, SG, PR), a currency slot (L) and FM. Each digit position takes one digit
 * of the input; a sign may also stand where a digit position starts (C locale:
 * '.' and ',' are the separators, no currency symbol).
 */
export function toNumber(text: string, fmt: string): string {
  if (/[EeVv]/.test(fmt.replace(/FM/gi, ''))) throw new FloeError(SqlState.featureNotSupported, `to_number format "${fmt}" is not supported`);
  // PR: a negative number in angle brackets.
  const bracketed = /PR/i.test(fmt) && /^\s*<.*>\s*$/.test(text);
  const input = bracketed ? text.trim().slice(1, -1) : text;
  let pos = 0;
  let whole = '';
  let frac = '';
  let inFraction = false;
  let negative = bracketed;
  let signRead = false;
  const readSign = (): void => {
    const c = input[pos];
    if (c === '-' || c === '+') { negative = c === '-'; signRead = true; pos++; }
  };
  for (const t of tokens(fmt)) {
    switch (t) {
      case '9': case '0':
        while (input[pos] === ' ' && whole === '' && !inFraction) pos++;
        if (!signRead && whole === '' && !inFraction) readSign();
        if (isDigit(input[pos])) {
          if (inFraction) frac += input[pos]; else whole += input[pos];
          pos++;
        }
        break;
      case 'D': case '.':
        if (input[pos] === '.') pos++;
        inFraction = true;
        break;
      case 'G': case ',':
        if (input[pos] === ',') pos++;
        break;
      case 'S': case 'MI': case 'PL': case 'SG':
        while (input[pos] === ' ') pos++;
        readSign();
        break;
      case 'PR': case 'FM': case 'L':
        break;
      default:
        pos++;
    }
  }
  if (whole === '' && frac === '') {
    throw new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type numeric: " "`);
  }
  const digits = `${negative ? '-' : ''}${whole === '' ? '0' : whole}${frac === '' ? '' : `.${frac}`}`;
  return formatDecimal(parseDecimal(digits));
}
