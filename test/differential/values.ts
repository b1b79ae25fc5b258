import type { Prng } from './prng.js';
import type { ColumnModel } from './schema-model.js';
import type { Feature } from './features.js';

/** A literal as SQL, and as PostgreSQL prints it back (null for NULL or for a value that must fail). */
export interface Value {
  readonly sql: string;
  readonly text: string | null;
  /** The value is meant to be refused (invalid date, varchar overflow, int out of range). */
  readonly invalid?: true;
}

export const NULL_VALUE: Value = { sql: 'NULL', text: null };

const INT_MAX = 2147483647;
const BIGINT_MAX = 9223372036854775807n;

const PLAIN_TEXTS = ['a', 'b', 'c', 'ab', 'abc', 'x', 'y', 'zz', 'k1', 'k2', 'foo', 'bar'];
const SPECIAL_TEXTS = ['', ' ', '  spaced  ', "it's", "''", '"q"', 'naïve', 'Ωmega', '☃', '日本', 'a%b', 'a_b', 'back\\slash', 'tab\there', 'A', 'Z'];

function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function textValue(s: string): Value {
  return { sql: quote(s), text: s };
}

/** Days since 2023-12-31 → a date in 2024–2025, as PostgreSQL prints it. */
function dateText(day: number): string {
  const d = new Date(Date.UTC(2024, 0, 1 + day));
  return d.toISOString().slice(0, 10);
}

/** A random value for a column; ints and dates come from narrow ranges so that keys collide and predicates hit. */
export function randomValue(rng: Prng, col: ColumnModel, features: ReadonlySet<Feature>, opts: { allowNull: boolean }): Value {
  if (opts.allowNull && features.has('nullValues') && rng.chance(0.12)) return NULL_VALUE;
  switch (col.type) {
    case 'int':
    case 'bigint': {
      if (features.has('intOverflow') && rng.chance(0.02)) {
        const v = col.type === 'int' ? String(INT_MAX + 1) : String(BIGINT_MAX + 1n);
        return { sql: rng.chance(0.5) ? v : `-${v}0`, text: null, invalid: true };
      }
      if (features.has('boundaryInts') && rng.chance(0.06)) {
        const v = col.type === 'int'
          ? rng.pick([String(INT_MAX), String(-INT_MAX - 1), '0', '-1'])
          : rng.pick([String(BIGINT_MAX), String(-BIGINT_MAX - 1n), '0', '4294967296']);
        return { sql: v.startsWith('-') ? `(${v})` : v, text: v };
      }
      const n = rng.int(-5, 40);
      return { sql: n < 0 ? `(${n})` : String(n), text: String(n) };
    }
    case 'text':
    case 'varchar': {
      if (col.type === 'varchar' && features.has('varcharOverflow') && rng.chance(0.04)) {
        const long = 'overflowing value'.slice(0, (col.length ?? 8) + 1 + rng.int(0, 4));
        return { sql: quote(long), text: null, invalid: true };
      }
      const pool = features.has('specialText') && rng.chance(0.3) ? SPECIAL_TEXTS : PLAIN_TEXTS;
      let s = rng.pick(pool);
      if (rng.chance(0.2)) s = `${s}${rng.int(0, 99)}`;
      if (col.type === 'varchar') s = s.slice(0, col.length ?? 8);
      return textValue(s);
    }
    case 'date': {
      if (features.has('invalidDates') && rng.chance(0.03)) {
        return { sql: rng.pick(["DATE '2024-02-30'", "'2024-13-01'", "'2023-02-29'", "DATE '2024-04-31'"]), text: null, invalid: true };
      }
      const t = dateText(rng.int(0, 60) * rng.pick([1, 1, 7]));
      return { sql: rng.chance(0.5) ? `DATE '${t}'` : quote(t), text: t };
    }
  }
}

/** COPY text format: tab-separated, \N for NULL, backslash escapes for the separators. */
export function copyField(v: Value): string {
  if (v.sql === 'NULL') return '\\N';
  const raw = v.text ?? literalBody(v.sql);
  return raw.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The characters a literal stands for (for invalid values that have no printed form). */
function literalBody(sql: string): string {
  const m = /'((?:[^']|'')*)'/.exec(sql);
  if (m !== null) return m[1]!.replace(/''/g, "'");
  return sql.replace(/^\(|\)$/g, '');
}
