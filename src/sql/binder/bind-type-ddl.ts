import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { AlterTypeAction, TypeDdl, TypeNameRef } from '../ddl-command.js';
import { strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { creationSchema, missingNameSchema } from './resolve-relation.js';
import { findUserType } from './user-type-lookup.js';

const ddl = (command: TypeDdl): BoundStatement => ({ kind: 'ddl', command });

/** A written type name: the schema search_path finds it in (or where CREATE would put it). */
function typeRef(ctx: BindContext, names: readonly string[]): TypeNameRef {
  if (names.length > 2) throw new FloeError(SqlState.featureNotSupported, `cross-database references are not implemented: ${names.join('.')}`);
  const name = names[names.length - 1]!;
  const schema = names.length > 1 ? names[0] : undefined;
  const found = findUserType(ctx, schema, name);
  return { type: { namespace: found?.namespace ?? schema ?? missingNameSchema(ctx), name }, written: names.join('.') };
}

function newTypeName(ctx: BindContext, names: readonly string[]): TypeNameRef['type'] {
  if (names.length > 2) throw new FloeError(SqlState.featureNotSupported, `cross-database references are not implemented: ${names.join('.')}`);
  return { namespace: names.length > 1 ? names[0]! : creationSchema(ctx), name: names[names.length - 1]! };
}

/** CREATE TYPE name AS ENUM (…). */
export function bindCreateEnum(ctx: BindContext, n: Raw): BoundStatement {
  const labels = ((n.vals as Raw[] | undefined) ?? []).map((v) => strList([v])[0] ?? '');
  return ddl({ kind: 'createType', type: newTypeName(ctx, strList(n.typeName)), labels });
}

/** CREATE TYPE name (a shell type); the other DefineStmt forms (base types, aggregates, operators) are refused. */
export function bindDefineStmt(ctx: BindContext, n: Raw): BoundStatement {
  const definition = (n.definition as Raw[] | undefined) ?? [];
  if (n.kind !== 'OBJECT_TYPE' || definition.length > 0 || n.args !== undefined) {
    const what = String(n.kind ?? '').replace('OBJECT_', '');
    throw new FloeError(SqlState.featureNotSupported, `CREATE ${what}${what === 'TYPE' ? ' with a definition (a base type)' : ''} is not supported`);
  }
  return ddl({ kind: 'createType', type: newTypeName(ctx, strList(n.defnames)), labels: undefined });
}

/** ALTER TYPE … ADD VALUE / RENAME VALUE. */
export function bindAlterEnum(ctx: BindContext, n: Raw): BoundStatement {
  const target = typeRef(ctx, strList(n.typeName));
  const action: AlterTypeAction = n.oldVal !== undefined
    ? { kind: 'renameValue', from: n.oldVal, to: n.newVal ?? '' }
    : {
        kind: 'addValue', label: n.newVal ?? '', ifNotExists: Boolean(n.skipIfNewValExists),
        position: n.newValNeighbor === undefined ? undefined : n.newValIsAfter ? { after: n.newValNeighbor } : { before: n.newValNeighbor },
      };
  return ddl({ kind: 'alterType', target, action });
}

/** The type an ALTER TYPE … RENAME TO / SET SCHEMA / OWNER TO names (its `object` is a List of names). */
function objectTypeRef(ctx: BindContext, object: Raw): TypeNameRef {
  return typeRef(ctx, strList(unwrap(object)[1].items ?? [object]));
}

export function bindRenameType(ctx: BindContext, n: Raw): BoundStatement {
  return ddl({ kind: 'alterType', target: objectTypeRef(ctx, n.object), action: { kind: 'rename', to: n.newname } });
}

export function bindSetTypeSchema(ctx: BindContext, n: Raw): BoundStatement {
  return ddl({ kind: 'alterType', target: objectTypeRef(ctx, n.object), action: { kind: 'setSchema', schema: n.newschema } });
}

export function bindAlterTypeOwner(ctx: BindContext, n: Raw): BoundStatement {
  return ddl({ kind: 'alterType', target: objectTypeRef(ctx, n.object), action: { kind: 'ownerTo', role: n.newowner?.rolename ?? '' } });
}

/** DROP TYPE [IF EXISTS] a, b [CASCADE | RESTRICT]. */
export function bindDropType(ctx: BindContext, n: Raw): BoundStatement {
  const types = (n.objects as Raw[]).map((o) => typeRef(ctx, strList(unwrap(o)[1].names)));
  return ddl({ kind: 'dropType', types, ifExists: Boolean(n.missing_ok), cascade: n.behavior === 'DROP_CASCADE' });
}
