import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SequenceMetadata, Warehouse } from '../lake/index.js';
import type { DdlCommand, TableName } from '../sql/index.js';

type SequenceDdl = Extract<DdlCommand, { kind: 'createSequence' | 'alterSequence' | 'dropSequence' }>;

export type NoticeSink = (message: string) => void;

function ownerOf(o: { table: TableName; column: string }) {
  return { namespace: o.table.namespace, table: o.table.name, column: o.column };
}

/** The sequence an ALTER names: 42809 for a table, 42P01 (or a NOTICE with IF EXISTS) when nothing has the name. */
function existing(w: Warehouse, name: TableName, ifExists: boolean, notice: NoticeSink, missing: string): SequenceMetadata | undefined {
  const s = w.getSequence(name.namespace, name.name);
  if (s !== undefined) return s;
  if (w.getTable(name.namespace, name.name) !== undefined) {
    throw new FloeError(SqlState.wrongObjectType, `"${name.name}" is not a sequence`, missing.startsWith('sequence') ? { hint: 'Use DROP TABLE to remove a table.' } : {});
  }
  if (ifExists) {
    notice(`${missing} "${name.name}" does not exist, skipping`);
    return undefined;
  }
  throw new FloeError(SqlState.undefinedTable, `${missing} "${name.name}" does not exist`);
}

/** CREATE / ALTER / DROP SEQUENCE against src/lake; returns the command tag. */
export async function runSequenceDdl(w: Warehouse, c: SequenceDdl, notice: NoticeSink): Promise<string> {
  switch (c.kind) {
    case 'createSequence': {
      const r = await w.createSequence({
        namespace: c.sequence.namespace, name: c.sequence.name, options: c.options,
        ...(c.ownedBy ? { ownedBy: ownerOf(c.ownedBy) } : {}),
      }, { ifNotExists: c.ifNotExists });
      if (!r.created) notice(`relation "${c.sequence.name}" already exists, skipping`);
      return 'CREATE SEQUENCE';
    }
    case 'alterSequence': {
      const s = existing(w, c.sequence, c.ifExists, notice, 'relation');
      if (s === undefined) return 'ALTER SEQUENCE';
      if (Object.keys(c.options).length > 0) await w.alterSequence(s.id, { kind: 'options', options: c.options });
      if (c.ownedBy !== undefined) await w.alterSequence(s.id, { kind: 'ownedBy', owner: c.ownedBy === null ? null : ownerOf(c.ownedBy) });
      if (c.rename !== undefined) await w.alterSequence(s.id, { kind: 'rename', to: c.rename });
      return 'ALTER SEQUENCE';
    }
    case 'dropSequence': {
      // Every name is checked before anything is dropped, as PostgreSQL does.
      const found = c.sequences.map((n) => existing(w, n, c.ifExists, notice, 'sequence'));
      for (const s of found) {
        if (s === undefined) continue;
        const { notices } = await w.dropSequence(s.id, { cascade: c.cascade });
        for (const n of notices) notice(n);
      }
      return 'DROP SEQUENCE';
    }
  }
}
