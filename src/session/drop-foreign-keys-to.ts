import { FloeError } from '../common/floe-error.js';
import type { Notice } from '../common/session-handler.js';
import type { TableMetadata, Warehouse } from '../lake/index.js';

interface Dependent {
  readonly table: TableMetadata;
  readonly constraint: string;
  readonly on: string;
}

/**
 * DROP TABLE of a table other tables' foreign keys reference, as PostgreSQL does: 2BP01
 * without CASCADE (unless the referencing tables are dropped by the same statement);
 * with CASCADE the foreign keys are dropped from the referencing tables, with a NOTICE.
 */
export async function dropForeignKeysTo(
  w: Warehouse, targets: readonly { readonly namespace: string; readonly name: string }[], cascade: boolean, notice: (n: Notice) => void,
): Promise<void> {
  const dropped = (ns: string, name: string) => targets.some((t) => t.namespace === ns && t.name === name);
  const dependents: Dependent[] = [];
  for (const o of w.listTables()) {
    if (dropped(o.namespace, o.name)) continue;
    for (const c of o.constraints) {
      if (c.kind === 'foreignKey' && dropped(c.refNamespace, c.refTable)) dependents.push({ table: o, constraint: c.name, on: c.refTable });
    }
  }
  if (dependents.length === 0) return;
  if (!cascade) {
    const one = new Set(dependents.map((d) => d.on)).size === 1 && targets.length === 1;
    throw new FloeError('2BP01', one ? `cannot drop table ${dependents[0]!.on} because other objects depend on it` : 'cannot drop desired object(s) because other objects depend on them', {
      detail: dependents.map((d) => `constraint ${d.constraint} on table ${d.table.name} depends on table ${d.on}`).join('\n'),
      hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
    });
  }
  const lines = dependents.map((d) => `drop cascades to constraint ${d.constraint} on table ${d.table.name}`);
  notice(lines.length === 1
    ? { severity: 'NOTICE', sqlstate: '00000', message: lines[0]! }
    : { severity: 'NOTICE', sqlstate: '00000', message: `drop cascades to ${lines.length} other objects`, detail: lines.join('\n') });
  for (const d of dependents) await w.alterTable(d.table.namespace, d.table.name, { kind: 'dropConstraint', name: d.constraint });
}
