import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatDecimal, naturalScale, parseDecimal } from '../arrow/decimal-text.js';
import { valueOrderOf } from '../stats/value-order.js';
import type { AggregateFunction } from './merge-engine.js';

/**
 * One aggregation column's function over canonical values: `init` takes the key's first
 * row, `add` each later one, `retract` an UPDATE's before-image (-U) where the function
 * can take a value back. NULL inputs are skipped except by last_value and first_value.
 */
export interface Aggregator {
  init(v: unknown): unknown;
  add(acc: unknown, v: unknown): unknown;
  retract(acc: unknown, v: unknown): unknown;
}

export function aggregatorOf(fn: AggregateFunction, type: SqlType, delimiter = ','): Aggregator {
  const skipNull = (f: (acc: unknown, v: unknown) => unknown) => (acc: unknown, v: unknown) => (v === null ? acc : acc === null ? v : f(acc, v));
  const keep = (_acc: unknown, v: unknown) => _acc;
  const id = (v: unknown) => v;
  switch (fn) {
    case 'sum': {
      const plus = adder(type);
      return { init: id, add: skipNull(plus), retract: (acc, v) => (v === null ? acc : plus(acc === null ? zeroOf(type) : acc, negate(type, v))) };
    }
    case 'count': {
      const one = type.kind === 'int8' ? (v: unknown) => (v === null ? 0n : 1n) : (v: unknown) => (v === null ? 0 : 1);
      const plus = adder(type);
      return {
        init: one,
        add: (acc, v) => plus(acc ?? zeroOf(type), one(v)),
        retract: (acc, v) => plus(acc ?? zeroOf(type), negate(type, one(v))),
      };
    }
    case 'min': case 'max': {
      const order = valueOrderOf(type)!;
      const sign = fn === 'min' ? -1 : 1;
      return { init: id, add: skipNull((a, v) => (sign * order(v, a) > 0 ? v : a)), retract: keep };
    }
    case 'last_value': return { init: id, add: (_a, v) => v, retract: () => null };
    case 'last_non_null_value': return { init: id, add: (a, v) => (v === null ? a : v), retract: () => null };
    case 'first_value': return { init: id, add: keep, retract: keep };
    case 'first_non_null_value': return { init: id, add: (a, v) => (a === null ? v : a), retract: keep };
    case 'listagg': return { init: id, add: skipNull((a, v) => `${a as string}${delimiter}${v as string}`), retract: keep };
    case 'bool_and': return { init: id, add: skipNull((a, v) => (a as boolean) && (v as boolean)), retract: keep };
    case 'bool_or': return { init: id, add: skipNull((a, v) => (a as boolean) || (v as boolean)), retract: keep };
  }
}

function zeroOf(type: SqlType): unknown {
  return type.kind === 'int8' ? 0n : type.kind === 'numeric' ? '0' : 0;
}

function negate(type: SqlType, v: unknown): unknown {
  if (type.kind === 'int8') return -BigInt(v as bigint);
  if (type.kind === 'numeric') {
    const s = v as string;
    return s.startsWith('-') ? s.slice(1) : `-${s}`;
  }
  return -(v as number);
}

/**
 * Addition in the column's type. An integer sum past the type's range is 22003, as
 * PostgreSQL's arithmetic on the column would be; numeric adds exactly at the column's
 * scale (or the operands' for unconstrained numeric).
 */
function adder(type: SqlType): (a: unknown, b: unknown) => unknown {
  switch (type.kind) {
    case 'int2': return (a, b) => checked((a as number) + (b as number), 32767, 'smallint');
    case 'int4': return (a, b) => checked((a as number) + (b as number), 2147483647, 'integer');
    case 'int8': return (a, b) => {
      const s = BigInt(a as bigint) + BigInt(b as bigint);
      if (s > 9223372036854775807n || s < -9223372036854775808n) throw outOfRange('bigint');
      return s;
    };
    case 'numeric': return (a, b) => {
      const scale = type.scale ?? Math.max(naturalScale(a as string), naturalScale(b as string));
      return formatDecimal(parseDecimal(a as string, scale) + parseDecimal(b as string, scale), scale);
    };
    default: return (a, b) => (a as number) + (b as number);
  }
}

function checked(v: number, max: number, name: string): number {
  if (v > max || v < -max - 1) throw outOfRange(name);
  return v;
}

function outOfRange(name: string): FloeError {
  return new FloeError(SqlState.numericValueOutOfRange, `${name} out of range`, { detail: 'an aggregation merge engine sum' });
}
