import type { Data, Field, RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { sqlTypeOfField } from '../arrow/arrow-type.js';
import { batchFromData, buildColumnData } from '../arrow/batch-builder.js';
import { dataReader } from '../arrow/column-reader.js';

/**
 * The rows at `indexes` of a batch, as a new batch with the same schema. Goes through
 * canonical values, which is simple and exact for every type; it runs only where rows
 * are dropped (deletion vectors, exact filters, limits are sliced instead).
 */
export function takeRows(batch: RecordBatch, indexes: readonly number[] | Int32Array): RecordBatch {
  const fields: Field[] = batch.schema.fields.slice();
  const children: Data[] = fields.map((f, c) => {
    const type: SqlType = sqlTypeOfField(f);
    const r = dataReader(batch.data.children[c]!, type);
    const vals = new Array<unknown>(indexes.length);
    for (let i = 0; i < indexes.length; i++) vals[i] = r.get(indexes[i]!);
    return buildColumnData(type, vals, f.name, true);
  });
  return batchFromData(fields, children, indexes.length);
}
