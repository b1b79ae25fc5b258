/**
 * PostgreSQL 12+ float output with extra_float_digits = 1 (the default): the
 * shortest digits that read back as the same value, in fixed notation when
 * the decimal exponent lies in [-4, DBL_DIG) (float4: FLT_DIG), else as
 * d.ddde±XX with at least two exponent digits.
 */
function special(v: number): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return undefined;
}

function layout(negative: boolean, digits: string, exp: number, maxFixedExp: number): string {
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= maxFixedExp) {
    const mant = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = Math.abs(exp);
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Splits JS's exponential form ("1.2345e+17") into significant digits and decimal exponent. */
function decompose(expForm: string): { digits: string; exp: number } {
  const [mant, e] = expForm.split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return { digits, exp: Number(e) };
}

export function formatFloat8(v: number): string {
  const s = special(v);
  if (s !== undefined) return s;
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const { digits, exp } = decompose(Math.abs(v).toExponential());
  return layout(v < 0, digits, exp, 15);
}

export function formatFloat4(v: number): string {
  const s = special(v);
  if (s !== undefined) return s;
  const f = Math.fround(v);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const a = Math.abs(f);
  let expForm = a.toExponential(8);
  for (let p = 1; p <= 9; p++) {
    const candidate = a.toExponential(p - 1);
    if (Math.fround(Number(candidate)) === a) {
      expForm = candidate;
      break;
    }
  }
  const { digits, exp } = decompose(expForm);
  return layout(f < 0, digits, exp, 6);
}
