import { FloeError } from '../common/floe-error.js';
import type { SqlType } from '../common/sql-type.js';
import { SqlState } from '../common/sqlstate.js';
import type { UserTypeMetadata, Warehouse } from '../lake/index.js';
import type { TypeDdl, TypeNameRef } from '../sql/index.js';

/** A column that uses a type (directly or as an array's element), as PostgreSQL's dependency messages name it. */
interface TypeDependent {
  readonly namespace: string;
  readonly table: string;
  readonly column: string;
}

function usesType(t: SqlType, oid: number): boolean {
  if (t.kind === 'array') return usesType(t.element, oid);
  return t.kind === 'text' && t.enumType?.oid === oid;
}

/** The table columns of type `oid` (PostgreSQL's pg_depend rows from pg_attribute to pg_type). */
export function columnsUsingType(w: Warehouse, oid: number): TypeDependent[] {
  return w.listTables().flatMap((t) => t.columns.filter((c) => usesType(c.type, oid)).map((c) => ({ namespace: t.namespace, table: t.name, column: c.name })));
}

const describe = (d: TypeDependent) => `column ${d.column} of table ${d.table}`;

function lookup(w: Warehouse, ref: TypeNameRef): UserTypeMetadata | undefined {
  return w.getType(ref.type.namespace, ref.type.name);
}

function missing(ref: TypeNameRef): FloeError {
  return new FloeError(SqlState.undefinedObject, `type "${ref.written}" does not exist`);
}

/** Sends a NOTICE: its message, SQLSTATE (00000 unless given) and DETAIL. */
export type TypeDdlNotice = (message: string, detail?: string, sqlstate?: string) => void;

/** Runs CREATE / ALTER / DROP TYPE; returns the command tag. */
export async function runTypeDdl(w: Warehouse, c: TypeDdl, notice: TypeDdlNotice): Promise<string> {
  switch (c.kind) {
    case 'createType':
      await w.createType(c.type.namespace, c.type.name, c.labels);
      return 'CREATE TYPE';
    case 'alterType': {
      const t = lookup(w, c.target);
      if (t === undefined) throw missing(c.target);
      const a = c.action;
      switch (a.kind) {
        case 'addValue':
        case 'renameValue':
          if (t.labels === undefined) throw new FloeError(SqlState.undefinedObject, `type "${c.target.written}" is only a shell`);
          if (a.kind === 'addValue') {
            if (!await w.addEnumValue(t.oid, a.label, a.position, a.ifNotExists)) notice(`enum label "${a.label}" already exists, skipping`, undefined, SqlState.duplicateObject);
          } else {
            // Stored values are labels: renaming one a column holds would orphan its rows (docs/design-notes.md).
            const users = a.from === a.to ? [] : columnsUsingType(w, t.oid);
            if (users.length > 0 && t.labels.some((l) => l.label === a.from) && !t.labels.some((l) => l.label === a.to)) {
              throw new FloeError(SqlState.featureNotSupported, `ALTER TYPE … RENAME VALUE is not supported for an enum type that a column uses`, {
                detail: `${describe(users[0]!)} uses type ${t.name}.`,
                hint: 'Add the new value, UPDATE the rows, and leave the old value unused.',
              });
            }
            await w.renameEnumValue(t.oid, a.from, a.to);
          }
          return 'ALTER TYPE';
        case 'rename':
          await w.moveType(t.oid, { namespace: t.namespace, name: a.to });
          return 'ALTER TYPE';
        case 'setSchema':
          await w.moveType(t.oid, { namespace: a.schema, name: t.name });
          return 'ALTER TYPE';
        case 'ownerTo':
          // One owner for everything (Floe has no per-object ownership yet): accepted when it names the current user's world.
          return 'ALTER TYPE';
      }
      break;
    }
    case 'dropType': return dropTypes(w, c, notice);
  }
  throw new FloeError(SqlState.internalError, 'unknown type DDL');
}

async function dropTypes(w: Warehouse, c: Extract<TypeDdl, { kind: 'dropType' }>, notice: TypeDdlNotice): Promise<string> {
  const found: UserTypeMetadata[] = [];
  for (const ref of c.types) {
    const t = lookup(w, ref);
    if (t === undefined) {
      if (!c.ifExists) throw missing(ref);
      notice(`type "${ref.written}" does not exist, skipping`);
    } else if (!found.some((f) => f.oid === t.oid)) {
      found.push(t);
    }
  }
  const dependents = found.flatMap((t) => columnsUsingType(w, t.oid).map((d) => ({ type: t, d })));
  if (dependents.length > 0 && !c.cascade) {
    const first = dependents[0]!.type;
    throw new FloeError(SqlState.dependentObjectsStillExist, `cannot drop type ${first.name} because other objects depend on it`, {
      detail: dependents.filter((x) => x.type === first).map((x) => `${describe(x.d)} depends on type ${first.name}`).join('\n'),
      hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
    });
  }
  if (dependents.length === 1) notice(`drop cascades to ${describe(dependents[0]!.d)}`);
  else if (dependents.length > 1) {
    notice(`drop cascades to ${dependents.length} other objects`, dependents.map((x) => `drop cascades to ${describe(x.d)}`).join('\n'));
  }
  for (const { d } of dependents) await w.alterTable(d.namespace, d.table, { kind: 'dropColumn', name: d.column, ifExists: true });
  await w.dropTypes(found.map((t) => t.oid));
  return 'DROP TYPE';
}
