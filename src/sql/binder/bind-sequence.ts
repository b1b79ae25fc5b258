import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SequenceDataType, SequenceOptions } from '../../lake/index.js';
import type { BoundStatement } from '../bound-statement.js';
import type { SequenceOwnerSpec, TableName } from '../ddl-command.js';
import { positionOf, str, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { creationSchema, effectiveSearchPath, missingNameSchema, qualifyExisting } from './resolve-relation.js';
import { resolveTypeName } from './resolve-type-name.js';

/** CREATE / ALTER SEQUENCE and identity options, as written (the lake validates them). */
export interface BoundSequenceOptions {
  readonly options: SequenceOptions;
  /** OWNED BY t.c, or null for OWNED BY NONE; undefined when not given. */
  readonly ownedBy?: { readonly schema: string | undefined; readonly table: string; readonly column: string } | null;
  /** SEQUENCE NAME n (identity options). */
  readonly sequenceName?: string;
}

function bigintArg(d: Raw): bigint {
  const [tag, v] = unwrap(d.arg);
  if (tag === 'Integer') return BigInt(v.ival ?? 0);
  if (tag === 'Float' && /^[+-]?\d+$/.test(String(v.fval))) return BigInt(String(v.fval));
  throw new FloeError(SqlState.syntaxError, `${String(d.defname).toUpperCase()} requires an integer value`, { position: positionOf(d) });
}

const sequenceTypes: Readonly<Record<string, SequenceDataType>> = { int2: 'int2', int4: 'int4', int8: 'int8' };

export function bindSequenceOptions(defs: readonly Raw[] | undefined): BoundSequenceOptions {
  const o: { -readonly [K in keyof SequenceOptions]: SequenceOptions[K] } = {};
  let ownedBy: BoundSequenceOptions['ownedBy'];
  let sequenceName: string | undefined;
  const seen = new Set<string>();
  for (const raw of defs ?? []) {
    const d = unwrap(raw)[1];
    const name = String(d.defname);
    if (seen.has(name)) throw new FloeError(SqlState.syntaxError, 'conflicting or redundant options', { position: positionOf(raw) });
    seen.add(name);
    switch (name) {
      case 'as': {
        const t = resolveTypeName(unwrap(d.arg)[1]);
        const dataType = sequenceTypes[t.kind];
        if (dataType === undefined) throw new FloeError(SqlState.invalidParameterValue, 'sequence type must be smallint, integer, or bigint');
        o.dataType = dataType;
        break;
      }
      case 'increment': o.increment = bigintArg(d); break;
      case 'minvalue': o.minValue = d.arg === undefined ? null : bigintArg(d); break;
      case 'maxvalue': o.maxValue = d.arg === undefined ? null : bigintArg(d); break;
      case 'start': o.start = bigintArg(d); break;
      case 'restart': o.restart = d.arg === undefined ? null : bigintArg(d); break;
      case 'cache': o.cache = bigintArg(d); break;
      case 'cycle': o.cycle = Boolean(unwrap(d.arg)[1].boolval); break;
      case 'owned_by': {
        const names = strList(unwrap(d.arg)[1].items);
        if (names.length === 1 && names[0] === 'none') { ownedBy = null; break; }
        if (names.length < 2) throw new FloeError(SqlState.syntaxError, 'invalid OWNED BY option', { hint: 'Specify OWNED BY table.column or OWNED BY NONE.' });
        ownedBy = { schema: names.length > 2 ? names[names.length - 3] : undefined, table: names[names.length - 2]!, column: names[names.length - 1]! };
        break;
      }
      case 'sequence_name': sequenceName = strList(unwrap(d.arg)[1].items).pop(); break;
      default:
        throw new FloeError(SqlState.featureNotSupported, `sequence option "${name}" is not supported`, { position: positionOf(raw) });
    }
  }
  return { options: o, ...(ownedBy !== undefined ? { ownedBy } : {}), ...(sequenceName !== undefined ? { sequenceName } : {}) };
}

/** The schema search_path finds an existing sequence in (or the creation schema when none has it). */
export function qualifyExistingSequence(ctx: BindContext, schema: string | undefined, name: string): TableName {
  if (schema !== undefined) return { namespace: schema, name };
  for (const s of effectiveSearchPath(ctx)) {
    if (s === 'pg_catalog' || s === 'information_schema') continue;
    if (ctx.env.warehouse.getSequence?.(s, name) !== undefined || ctx.env.warehouse.getTable(s, name) !== undefined) return { namespace: s, name };
  }
  return { namespace: missingNameSchema(ctx), name };
}

function ownerSpec(ctx: BindContext, o: BoundSequenceOptions['ownedBy']): SequenceOwnerSpec | null | undefined {
  if (o === undefined || o === null) return o;
  return { table: qualifyExisting(ctx, o.schema, o.table), column: o.column };
}

export function bindCreateSequence(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.sequence;
  if (rv.relpersistence === 't') throw new FloeError(SqlState.featureNotSupported, 'temporary sequences are not supported', { position: positionOf(rv) });
  const o = bindSequenceOptions(n.options);
  const ownedBy = ownerSpec(ctx, o.ownedBy);
  return {
    kind: 'ddl',
    command: {
      kind: 'createSequence', sequence: { namespace: rv.schemaname ?? creationSchema(ctx), name: rv.relname },
      ifNotExists: Boolean(n.if_not_exists), options: o.options, ...(ownedBy ? { ownedBy } : {}),
    },
  };
}

export function bindAlterSequence(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.sequence;
  const o = bindSequenceOptions(n.options);
  const ownedBy = ownerSpec(ctx, o.ownedBy);
  return {
    kind: 'ddl',
    command: {
      kind: 'alterSequence', sequence: qualifyExistingSequence(ctx, rv.schemaname, rv.relname), ifExists: Boolean(n.missing_ok),
      options: o.options, ...(ownedBy !== undefined ? { ownedBy } : {}),
    },
  };
}

export function bindRenameSequence(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.relation;
  return {
    kind: 'ddl',
    command: {
      kind: 'alterSequence', sequence: qualifyExistingSequence(ctx, rv.schemaname, rv.relname), ifExists: Boolean(n.missing_ok),
      options: {}, rename: String(n.newname),
    },
  };
}

export function bindDropSequence(ctx: BindContext, n: Raw): BoundStatement {
  const sequences = (n.objects as Raw[]).map((o) => {
    const names = strList(unwrap(o)[1].items);
    return qualifyExistingSequence(ctx, names.length > 1 ? names[names.length - 2] : undefined, names[names.length - 1]!);
  });
  return { kind: 'ddl', command: { kind: 'dropSequence', sequences, ifExists: Boolean(n.missing_ok), cascade: n.behavior === 'DROP_CASCADE' } };
}

const serialTypes: Readonly<Record<string, 'int2' | 'int4' | 'int8'>> = {
  smallserial: 'int2', serial2: 'int2', serial: 'int4', serial4: 'int4', bigserial: 'int8', serial8: 'int8',
};

/** The integer type a `serial` / `bigserial` / `smallserial` column has, or undefined for any other type name. */
export function serialType(typeName: Raw): 'int2' | 'int4' | 'int8' | undefined {
  const names = strList(typeName.names);
  if (names.length !== 1 || (typeName.arrayBounds ?? []).length > 0) return undefined;
  return serialTypes[names[0]!.toLowerCase()];
}

/** GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [( options )]. */
export function identityOf(con: Raw): { kind: 'always' | 'byDefault'; options: SequenceOptions } {
  const o = bindSequenceOptions(con.options);
  if (o.ownedBy !== undefined) throw new FloeError(SqlState.syntaxError, 'invalid sequence option OWNED BY', { position: positionOf(con) });
  return { kind: con.generated_when === 'a' ? 'always' : 'byDefault', options: o.options };
}

void str;
