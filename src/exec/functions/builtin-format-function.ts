import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';
import { valueToText } from './builtin-operators.js';
import { quoteIdent } from './builtin-string-functions.js';
import { registerScalarFunction } from './function-registry.js';

function bad(message: string, hint?: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message, hint === undefined ? {} : { hint });
}

const SINGLE_PERCENT_HINT = 'For a single "%" use "%%".';

function quoteLiteral(s: string): string {
  const q = `'${s.replace(/'/g, "''")}'`;
  return s.includes('\\') ? `E${q.replace(/\\/g, '\\\\')}` : q;
}

/**
 * PostgreSQL's format(formatstr, args…): `%[n$][-][width]{s|I|L}` and `%%`,
 * where width may be `*` or `*n$` (taken from an argument). An argument
 * without a position is the one after the last one used.
 */
export function formatSql(fmt: string, args: readonly unknown[], types: readonly SqlType[], ctx: EvalContext): string {
  let out = '';
  let next = 0;
  let i = 0;
  const n = fmt.length;
  const end = (): never => { throw bad('unterminated format() type specifier', SINGLE_PERCENT_HINT); };
  /** Reads digits at i; undefined when there are none. */
  const number = (): number | undefined => {
    const m = /^\d+/.exec(fmt.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    const v = Number(m[0]);
    if (v > 2147483647) throw bad('number is out of range');
    return v;
  };
  const argument = (position: number | undefined): number => {
    if (position !== undefined) {
      if (position === 0) throw bad('format specifies argument 0, but arguments are numbered from 1');
      next = position;
    } else next++;
    if (next > args.length) throw bad('too few arguments for format()');
    return next - 1;
  };
  while (i < n) {
    const c = fmt[i]!;
    if (c !== '%') { out += c; i++; continue; }
    i++;
    if (i >= n) end();
    if (fmt[i] === '%') { out += '%'; i++; continue; }
    // An optional n$ position, flags, then a width (digits, *, or *n$).
    let position: number | undefined;
    const start = i;
    const digits = number();
    if (digits !== undefined && fmt[i] === '$') { position = digits; i++; } else i = start;
    let leftAlign = false;
    while (fmt[i] === '-') { leftAlign = true; i++; }
    let width = 0;
    if (fmt[i] === '*') {
      i++;
      let widthPos: number | undefined;
      const s2 = i;
      const d2 = number();
      if (d2 !== undefined && fmt[i] === '$') { widthPos = d2; i++; } else i = s2;
      const wi = argument(widthPos);
      const w = args[wi];
      if (w !== null) {
        const wv = Number(w);
        if (wv < 0) { leftAlign = true; width = -wv; } else width = wv;
      }
    } else {
      width = number() ?? 0;
    }
    if (i >= n) end();
    const type = fmt[i]!;
    i++;
    if (type !== 's' && type !== 'I' && type !== 'L') throw bad(`unrecognized format() type specifier "${type}"`, SINGLE_PERCENT_HINT);
    const ai = argument(position);
    const v = args[ai];
    let text: string;
    if (type === 's') text = v === null ? '' : valueToText(v, types[ai]!, ctx);
    else if (type === 'I') {
      if (v === null) throw new FloeError(SqlState.nullValueNotAllowed, 'null values cannot be formatted as an SQL identifier');
      text = quoteIdent(valueToText(v, types[ai]!, ctx));
    } else text = v === null ? 'NULL' : quoteLiteral(valueToText(v, types[ai]!, ctx));
    const len = [...text].length;
    if (len < width) text = leftAlign ? text + ' '.repeat(width - len) : ' '.repeat(width - len) + text;
    out += text;
  }
  return out;
}

export function registerBuiltinFormatFunction(): void {
  registerScalarFunction({
    name: 'format', args: [{ kind: 'text' }, 'any'], variadic: true, returns: { kind: 'text' }, strict: false, id: 'format(text,any...)',
    impl: ([f, ...a], ctx) => (f === null ? null : formatSql(f as string, a, a.map(() => ({ kind: 'text' }) as SqlType), ctx)),
    implFor: (types) => ([f, ...a], ctx) => (f === null ? null : formatSql(f as string, a, types.slice(1), ctx)),
  });
}
