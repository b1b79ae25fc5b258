import type { TableDefinition, TableMetadata, Warehouse } from '../../lake/index.js';
import { isFloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { AuditEvent } from './audit-event.js';

export const AUDIT_NAMESPACE = 'audit';
export const AUDIT_TABLE = 'floe_audit';

/** The part of the lake's Warehouse the audit trail uses (tests wrap a real one to inject failures). */
export type AuditWarehouse = Pick<Warehouse, 'getTable' | 'createNamespace' | 'createTable' | 'begin' | 'planScan'>;

/**
 * audit.floe_audit: an append table (no primary key) partitioned by day of `at`, so a
 * time-bounded read or retention's delete touches only the days it names. It gets no
 * owner or ACL record, so it belongs to the bootstrap superuser and nobody else may read
 * it (src/lake/security/object-acl.ts); the schema likewise.
 */
export const AUDIT_TABLE_DEFINITION: TableDefinition = {
  namespace: AUDIT_NAMESPACE,
  name: AUDIT_TABLE,
  primaryKey: [],
  partitionBy: [{ sourceColumn: 'at', transform: { kind: 'day' }, name: 'at_day' }],
  columns: [
    { name: 'at', type: { kind: 'timestamptz' }, nullable: false },
    { name: 'user_name', type: { kind: 'text' }, nullable: false },
    { name: 'client_addr', type: { kind: 'text' }, nullable: true },
    { name: 'application_name', type: { kind: 'text' }, nullable: false },
    { name: 'action', type: { kind: 'text' }, nullable: false },
    { name: 'objects', type: { kind: 'array', element: { kind: 'text' } }, nullable: false },
    { name: 'statement', type: { kind: 'text' }, nullable: true },
    { name: 'rows', type: { kind: 'int8' }, nullable: true },
    { name: 'sqlstate', type: { kind: 'text' }, nullable: false },
    { name: 'outcome', type: { kind: 'text' }, nullable: false },
  ],
};

/**
 * audit.floe_audit, created (with its schema) when missing. Several gateways on one catalog
 * may race to create it: whoever loses finds the winner's table.
 */
export async function ensureAuditTable(warehouse: AuditWarehouse): Promise<TableMetadata> {
  const found = warehouse.getTable(AUDIT_NAMESPACE, AUDIT_TABLE);
  if (found !== undefined) return found;
  try {
    await warehouse.createNamespace(AUDIT_NAMESPACE, { ifNotExists: true });
  } catch (e) {
    if (!isFloeError(e) || e.sqlstate !== SqlState.duplicateSchema) throw e;
  }
  try {
    return await warehouse.createTable(AUDIT_TABLE_DEFINITION, { ifNotExists: true });
  } catch (e) {
    const raced = isFloeError(e) && e.sqlstate === SqlState.duplicateTable ? warehouse.getTable(AUDIT_NAMESPACE, AUDIT_TABLE) : undefined;
    if (raced === undefined) throw e;
    return raced;
  }
}

/** A buffered event as the table stores it: checked by auditRowOf (`rows` a safe integer or null, `statement` bounded). */
export type AuditRow = AuditEvent;

/**
 * The events as insert's column arrays, in the table's column order and by name, so a
 * column a superuser added reads NULL rather than shifting the others.
 */
export function auditColumns(table: TableMetadata, rows: readonly AuditRow[]): unknown[][] {
  return table.columns.map((c) => {
    const value = COLUMN_VALUES.get(c.name);
    return value === undefined ? rows.map(() => null) : rows.map(value);
  });
}

const COLUMN_VALUES: ReadonlyMap<string, (r: AuditRow) => unknown> = new Map<string, (r: AuditRow) => unknown>([
  ['at', (r) => r.at],
  ['user_name', (r) => r.userName],
  ['client_addr', (r) => r.clientAddr],
  ['application_name', (r) => r.applicationName],
  ['action', (r) => r.action],
  ['objects', (r) => [...r.objects]],
  ['statement', (r) => r.statement],
  ['rows', (r) => (r.rows === null ? null : BigInt(r.rows))],
  ['sqlstate', (r) => r.sqlstate],
  ['outcome', (r) => r.outcome],
]);
