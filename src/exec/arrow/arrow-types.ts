import {
  Binary, Bool, DateDay, Field, FixedSizeBinary, Float32, Float64, Int16, Int32, Int64,
  List, Struct, TimeMicrosecond, TimestampMicrosecond, Utf8,
} from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';

/**
 * The Arrow type the executor uses for a SqlType in the batches it produces.
 * Same mapping as src/lake/arrow/arrow-type.ts (so scans and operators agree),
 * except numeric: operator output always carries numeric as Utf8 text (the
 * canonical form), because intermediate results have no fixed precision.
 * Readers (vector-values.ts) accept Decimal128 from scans as well.
 */
export function execArrowType(type: SqlType): DataType {
  switch (type.kind) {
    case 'bool': return new Bool();
    case 'int2': return new Int16();
    case 'int4': return new Int32();
    case 'int8': return new Int64();
    case 'float4': return new Float32();
    case 'float8': return new Float64();
    case 'numeric':
    case 'text': case 'varchar': case 'bpchar': case 'name': case 'char': case 'json': case 'jsonb': case 'unknown':
      return new Utf8();
    case 'bytea': return new Binary();
    case 'date': return new DateDay();
    case 'time': return new TimeMicrosecond();
    case 'timestamp': return new TimestampMicrosecond();
    case 'timestamptz': return new TimestampMicrosecond('UTC');
    case 'interval':
      return new Struct([
        new Field('months', new Int32(), false),
        new Field('days', new Int32(), false),
        new Field('micros', new Int64(), false),
      ]);
    case 'uuid': return new FixedSizeBinary(16);
    case 'oid': case 'regclass': case 'regtype': case 'regproc': return new Int32();
    case 'array': return new List(new Field('element', execArrowType(type.element), true));
  }
}
