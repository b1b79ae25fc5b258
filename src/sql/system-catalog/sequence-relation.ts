import type { SqlType } from '../../common/sql-type.js';
import type { Warehouse } from '../../lake/index.js';
import type { VirtualTable } from '../binder/virtual-table.js';

const columns = [
  { name: 'last_value', type: { kind: 'int8' } as SqlType },
  { name: 'log_cnt', type: { kind: 'int8' } as SqlType },
  { name: 'is_called', type: { kind: 'bool' } as SqlType },
];

/**
 * A sequence read as a relation (`SELECT * FROM s`, `'s'::regclass`): one row of
 * last_value, log_cnt, is_called, with the sequence's oid. Computed from the name like
 * the lake system tables, and not listed: pg_class lists sequences itself (relkind 'S').
 */
export function lookupSequenceRelation(warehouse: Warehouse, schema: string, name: string): VirtualTable | undefined {
  if (schema === 'pg_catalog' || schema === 'information_schema') return undefined;
  const s = warehouse.getSequence(schema, name);
  if (s === undefined) return undefined;
  return {
    schema, name, oid: s.id, columns,
    async rows() {
      const state = warehouse.sequenceState(s.id);
      return [[state.lastValue, 0n, state.isCalled]];
    },
  };
}
