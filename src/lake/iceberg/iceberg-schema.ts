import type { SqlType } from '../../common/sql-type.js';
import { isDecimalNumeric } from '../arrow/arrow-type.js';
import { physicalName } from '../table/table-layout.js';
import type { ColumnMetadata, TableMetadata } from '../table/table-metadata.js';

/** An Iceberg primitive type as table metadata JSON spells it ("int", "decimal(10,2)", …). */
export type IcebergPrimitive = string;

/** A column Iceberg readers see: Floe's field id, SQL name and the Iceberg type of its Parquet column. */
export interface IcebergColumn {
  readonly column: ColumnMetadata;
  readonly type: IcebergPrimitive;
}

/**
 * The Iceberg type a Floe column's Parquet storage reads as exactly (arrow-type.ts gives the
 * storage), or undefined when none does: such a column is left out of the Iceberg schema, so
 * Iceberg readers never see a value that means something else.
 *  - interval (a struct of months/days/micros), timetz (packed time and zone), the oid family
 *    (unsigned values in signed int32), void/unknown: no Iceberg type has their meaning.
 *  - arrays: Iceberg lists need element field ids, which Floe does not assign yet.
 *  - numeric without a precision (or above 38) is stored as its text: Iceberg string.
 */
export function icebergTypeOf(type: SqlType): IcebergPrimitive | undefined {
  switch (type.kind) {
    case 'bool': return 'boolean';
    case 'int2': case 'int4': return 'int';
    case 'int8': return 'long';
    case 'float4': return 'float';
    case 'float8': return 'double';
    case 'numeric': return isDecimalNumeric(type) ? `decimal(${type.precision},${type.scale ?? 0})` : 'string';
    case 'text': case 'varchar': case 'bpchar': case 'name': case 'char': case 'json': case 'jsonb': return 'string';
    case 'bytea': return 'binary';
    case 'date': return 'date';
    case 'time': return 'time';
    case 'timestamp': return 'timestamp';
    case 'timestamptz': return 'timestamptz';
    case 'uuid': return 'uuid';
    default: return undefined;
  }
}

/** The table's columns that have an Iceberg type, in table order. */
export function icebergColumnsOf(table: TableMetadata): IcebergColumn[] {
  const out: IcebergColumn[] = [];
  for (const column of table.columns) {
    const type = icebergTypeOf(column.type);
    if (type !== undefined) out.push({ column, type });
  }
  return out;
}

/**
 * Table metadata JSON's schema object (spec, Appendix C). Every field is optional, which is
 * always correct: a required field would have to be non-null in every file of every retained
 * snapshot, across SET/DROP NOT NULL. (The primary key becomes identifier-field-ids, which
 * must be required, with the change store's equality deletes.)
 */
export function icebergSchemaJson(schemaId: number, columns: readonly IcebergColumn[]): Record<string, unknown> {
  return {
    type: 'struct',
    'schema-id': schemaId,
    fields: columns.map(({ column, type }) => ({ id: column.fieldId, name: column.name, required: false, type })),
  };
}

/**
 * `schema.name-mapping.default`: Floe's Parquet files carry no Parquet field_id (the field
 * id is in Arrow metadata, `floe.field_id`, which Iceberg readers do not look at), so readers
 * find each field by the physical column name `c<fieldId>` (table-layout.ts).
 */
export function nameMappingJson(columns: readonly IcebergColumn[]): string {
  return JSON.stringify(columns.map(({ column }) => ({ 'field-id': column.fieldId, names: [physicalName(column.fieldId)] })));
}
