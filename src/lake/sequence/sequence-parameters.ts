import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SequenceDataType, SequenceOptions, SequenceParameters } from './sequence-metadata.js';

const TYPE_BOUNDS: Readonly<Record<SequenceDataType, readonly [bigint, bigint]>> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-9223372036854775808n, 9223372036854775807n],
};

const TYPE_NAMES: Readonly<Record<SequenceDataType, string>> = { int2: 'smallint', int4: 'integer', int8: 'bigint' };

export function sequenceTypeName(t: SequenceDataType): string {
  return TYPE_NAMES[t];
}

function invalid(message: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message);
}

/**
 * Validates CREATE (current undefined) or ALTER options against the current settings and
 * returns the new settings, with PostgreSQL's defaults and messages (sequence.c's init_params).
 * `restartAt` is the value the next nextval returns when the options restart the sequence.
 */
export function resolveSequenceParameters(
  options: SequenceOptions, current: SequenceParameters | undefined,
): { params: SequenceParameters; restartAt: bigint | undefined } {
  const dataType = options.dataType ?? current?.dataType ?? 'int8';
  const [typeMin, typeMax] = TYPE_BOUNDS[dataType];
  const increment = options.increment ?? current?.increment ?? 1n;
  if (increment === 0n) throw invalid('INCREMENT must not be zero');
  // A changed type or direction resets the bounds that were the old type's or direction's defaults.
  const typeChanged = current !== undefined && options.dataType !== undefined && options.dataType !== current.dataType;
  const [curTypeMin, curTypeMax] = current ? TYPE_BOUNDS[current.dataType] : [typeMin, typeMax];
  let maxValue: bigint;
  if (options.maxValue !== undefined && options.maxValue !== null) maxValue = options.maxValue;
  else if (options.maxValue === null || current === undefined
    || (typeChanged && (current.maxValue === curTypeMax || current.maxValue > typeMax))) maxValue = increment > 0n ? typeMax : -1n;
  else maxValue = current.maxValue;
  let minValue: bigint;
  if (options.minValue !== undefined && options.minValue !== null) minValue = options.minValue;
  else if (options.minValue === null || current === undefined
    || (typeChanged && (current.minValue === curTypeMin || current.minValue < typeMin))) minValue = increment > 0n ? 1n : typeMin;
  else minValue = current.minValue;
  const typeName = TYPE_NAMES[dataType];
  if (maxValue < typeMin || maxValue > typeMax) throw invalid(`MAXVALUE (${maxValue}) is out of range for sequence data type ${typeName}`);
  if (minValue < typeMin || minValue > typeMax) throw invalid(`MINVALUE (${minValue}) is out of range for sequence data type ${typeName}`);
  if (minValue >= maxValue) throw invalid(`MINVALUE (${minValue}) must be less than MAXVALUE (${maxValue})`);
  const effectiveStart = options.start ?? current?.start ?? (increment > 0n ? minValue : maxValue);
  if (effectiveStart < minValue) throw invalid(`START value (${effectiveStart}) cannot be less than MINVALUE (${minValue})`);
  if (effectiveStart > maxValue) throw invalid(`START value (${effectiveStart}) cannot be greater than MAXVALUE (${maxValue})`);
  let restartAt: bigint | undefined;
  if (options.restart !== undefined) {
    restartAt = options.restart ?? effectiveStart;
    if (restartAt < minValue) throw invalid(`RESTART value (${restartAt}) cannot be less than MINVALUE (${minValue})`);
    if (restartAt > maxValue) throw invalid(`RESTART value (${restartAt}) cannot be greater than MAXVALUE (${maxValue})`);
  }
  const cache = options.cache ?? current?.cache ?? 1n;
  if (cache <= 0n) throw invalid(`CACHE (${cache}) must be greater than zero`);
  return {
    params: { dataType, increment, minValue, maxValue, start: effectiveStart, cache, cycle: options.cycle ?? current?.cycle ?? false },
    restartAt,
  };
}

/** The values after (lastValue, isCalled), at most `count`, wrapping when the sequence cycles; 2200H when there is none. */
export function followingValues(
  name: string, p: SequenceParameters, lastValue: bigint, isCalled: boolean, count: number,
): bigint[] {
  const out: bigint[] = [];
  let last = lastValue;
  let called = isCalled;
  while (out.length < count) {
    let next: bigint;
    if (!called) next = last;
    else {
      next = last + p.increment;
      if (p.increment > 0n && next > p.maxValue) {
        if (!p.cycle) {
          if (out.length > 0) break;
          throw new FloeError('2200H', `nextval: reached maximum value of sequence "${name}" (${p.maxValue})`);
        }
        next = p.minValue;
      } else if (p.increment < 0n && next < p.minValue) {
        if (!p.cycle) {
          if (out.length > 0) break;
          throw new FloeError('2200H', `nextval: reached minimum value of sequence "${name}" (${p.minValue})`);
        }
        next = p.maxValue;
      }
    }
    out.push(next);
    last = next;
    called = true;
  }
  return out;
}
