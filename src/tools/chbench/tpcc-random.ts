import { RandomStream } from '../tpch/random-stream.js';

const SYLLABLES = ['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING'] as const;
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The run-time constants C of NURand (clause 2.1.6): one per A, drawn once per run. */
export interface NurandConstants {
  readonly cLast: number;
  readonly cId: number;
  readonly olIId: number;
}

/** TPC-C's customer last name for a number in 0..999 (clause 4.3.2.3): three syllables by its digits. */
export function lastName(n: number): string {
  return SYLLABLES[Math.floor(n / 100) % 10]! + SYLLABLES[Math.floor(n / 10) % 10]! + SYLLABLES[n % 10]!;
}

/**
 * TPC-C's random distributions (clause 2.1.6 and 4.3.2) over a seeded stream, so a
 * generator or a client with the same seed always draws the same values.
 */
export class TpccRandom {
  readonly #r: RandomStream;
  readonly c: NurandConstants;

  constructor(seed: string, c?: NurandConstants) {
    this.#r = RandomStream.named(seed);
    this.c = c ?? { cLast: this.int(0, 255), cId: this.int(0, 1023), olIId: this.int(0, 8191) };
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.#r.next();
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return this.#r.int(lo, hi);
  }

  /** NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. */
  nurand(a: number, c: number, x: number, y: number): number {
    return (((this.int(0, a) | this.int(x, y)) + c) % (y - x + 1)) + x;
  }

  /** A customer id in 1..customers, NURand(1023) (a scaled-down count keeps the skew). */
  customerId(customers: number): number {
    return this.nurand(1023, this.c.cId, 1, customers);
  }

  /** An item id in 1..items, NURand(8191). */
  itemId(items: number): number {
    return this.nurand(8191, this.c.olIId, 1, items);
  }

  /** A last name for a run's lookups: NURand(255, 0, 999) through lastName. */
  lastNameForRun(customers: number): string {
    // Only the first min(1000, customers) customers get the generated names in order.
    return lastName(this.nurand(255, this.c.cLast, 0, Math.min(999, customers - 1)));
  }

  /** a-string: random alphanumeric text of a length in [min, max]. */
  aString(min: number, max: number): string {
    const n = this.int(min, max);
    let s = '';
    for (let i = 0; i < n; i++) s += ALPHANUMERIC[this.int(0, ALPHANUMERIC.length - 1)];
    return s;
  }

  /** n-string: random digits of a length in [min, max]. */
  nString(min: number, max: number): string {
    const n = this.int(min, max);
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }

  /** Two random upper-case letters (a state; CH derives a customer's nation from its first letter). */
  state(): string {
    return LETTERS[this.int(0, 25)]! + LETTERS[this.int(0, 25)]!;
  }

  /** Zip: four random digits then "11111" (clause 4.3.2.7). */
  zip(): string {
    return `${this.nString(4, 4)}11111`;
  }

  /** i_data / s_data: 26..50 characters, 10% containing "ORIGINAL" at a random position (clause 4.3.3.1). */
  dataWithOriginal(): string {
    const s = this.aString(26, 50);
    if (this.int(1, 10) !== 1) return s;
    const at = this.int(0, s.length - 8);
    return s.slice(0, at) + 'ORIGINAL' + s.slice(at + 8);
  }

  /** A fixed-point value with `scale` decimals, uniform over [lo, hi] (both given in units of 10^-scale), as numeric text. */
  decimal(lo: number, hi: number, scale: number): string {
    return decimalText(this.int(lo, hi), scale);
  }

  /** A random permutation of 1..n (orders' o_c_id, clause 4.3.3.1). */
  permutation(n: number): number[] {
    const p = Array.from({ length: n }, (_, i) => i + 1);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(0, i);
      [p[i], p[j]] = [p[j]!, p[i]!];
    }
    return p;
  }
}

/** An integer count of 10^-scale units as numeric text ("-0.0125" for -125 at scale 4). */
export function decimalText(units: number, scale: number): string {
  const neg = units < 0;
  const a = Math.abs(Math.round(units));
  if (scale === 0) return `${neg ? '-' : ''}${a}`;
  const p = 10 ** scale;
  return `${neg ? '-' : ''}${Math.floor(a / p)}.${String(a % p).padStart(scale, '0')}`;
}
