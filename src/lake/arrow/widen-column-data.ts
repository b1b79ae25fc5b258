import { DataType } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { arrowTypeOf } from './arrow-type.js';
import { buildColumnData } from './batch-builder.js';
import { dataReader } from './column-reader.js';

/**
 * A file's column as the column's current type, after ALTER COLUMN … TYPE widened it
 * without rewriting files (int2 → int4 → int8, float4 → float8): the values are read
 * and rebuilt. Other representations (varchar → text, numeric precision) are read as
 * they are stored and returned unchanged.
 */
export function widenColumnData(data: Data, type: SqlType): Data {
  const want = arrowTypeOf(type);
  const have = data.type as DataType;
  const ints = DataType.isInt(want) && DataType.isInt(have) && (have as unknown as { bitWidth: number }).bitWidth < (want as unknown as { bitWidth: number }).bitWidth;
  const floats = DataType.isFloat(want) && DataType.isFloat(have) && (have as unknown as { precision: number }).precision < (want as unknown as { precision: number }).precision;
  if (!ints && !floats) return data;
  const from: SqlType = ints
    ? { kind: (have as unknown as { bitWidth: number }).bitWidth === 16 ? 'int2' : 'int4' }
    : { kind: 'float4' };
  const read = dataReader(data, from);
  const values = new Array<unknown>(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = read.get(i);
    values[i] = v !== null && type.kind === 'int8' ? BigInt(v as number) : v;
  }
  return buildColumnData(type, values, '', true);
}
