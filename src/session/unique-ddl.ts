import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { IndexKey, TableConstraint, TableMetadata, Warehouse } from '../lake/index.js';
import type { DdlCommand, UniqueSpec } from '../sql/index.js';

type UniqueConstraint = Extract<TableConstraint, { kind: 'unique' }>;
type IndexConstraint = Extract<TableConstraint, { kind: 'unique' | 'index' }>;
type CreateIndex = Extract<DdlCommand, { kind: 'createIndex' }>;
type DropIndex = Extract<DdlCommand, { kind: 'dropIndex' }>;

/** PostgreSQL's NAMEDATALEN - 1: identifiers are cut to 63 bytes. */
const MAX_NAME_BYTES = 63;

/**
 * Names that PostgreSQL keeps in a schema's pg_class beside tables: indexes, so
 * primary keys (`t_pkey`) and unique constraints. A new index name must avoid them all.
 */
function relationNames(w: Warehouse, namespace: string): Set<string> {
  const out = new Set<string>();
  for (const t of w.listTables(namespace)) {
    out.add(t.name);
    if (t.primaryKey.length > 0) out.add(`${t.name}_pkey`);
    for (const c of t.constraints) if (c.kind === 'unique' || c.kind === 'index') out.add(c.name);
  }
  return out;
}

/**
 * PostgreSQL's makeObjectName: `name1_name2_label`, the longer of name1 and name2 cut
 * until the whole fits in 63 bytes; a taken name gets a number after the label
 * (`t_a_key1`), as ChooseRelationName does.
 */
export function chooseIndexName(table: string, columns: readonly string[], label: 'key' | 'idx', taken: ReadonlySet<string>): string {
  const build = (suffix: string): string => {
    let a = table;
    let b = columns.join('_');
    const bytes = (s: string) => Buffer.byteLength(s);
    const overhead = () => bytes(suffix) + 2;
    while (bytes(a) + bytes(b) + overhead() > MAX_NAME_BYTES) {
      if (bytes(a) >= bytes(b)) a = a.slice(0, -1);
      else b = b.slice(0, -1);
    }
    return `${a}_${b}_${suffix}`;
  };
  for (let pass = 0; ; pass++) {
    const name = build(pass === 0 ? label : `${label}${pass}`);
    if (!taken.has(name)) return name;
  }
}

/**
 * CREATE TABLE's UNIQUE constraints with their names: explicit ones must not clash with
 * a relation of the schema (42P07); a constraint repeating the primary key or an earlier
 * one on the same columns adds nothing, as PostgreSQL drops such duplicates.
 */
export function uniqueConstraintsForCreate(
  w: Warehouse, namespace: string, table: string, primaryKey: readonly string[], columns: readonly string[], specs: readonly UniqueSpec[],
): UniqueConstraint[] {
  const taken = relationNames(w, namespace);
  // An index of the schema already holds the new table's name (tables clash in the catalog).
  if (taken.has(table) && !w.listTables(namespace).some((t) => t.name === table)) {
    throw new FloeError(SqlState.duplicateTable, `relation "${table}" already exists`);
  }
  taken.add(table);
  if (primaryKey.length > 0) taken.add(`${table}_pkey`);
  const out: UniqueConstraint[] = [];
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (const s of specs) {
    for (const col of s.columns) {
      if (!columns.includes(col)) throw new FloeError(SqlState.undefinedColumn, `column "${col}" named in key does not exist`);
    }
    if (same(s.columns, primaryKey) && s.name === undefined) continue;
    if (out.some((c) => same(c.columns, s.columns) && (s.name === undefined || s.name === c.name))) continue;
    out.push(named(s, table, taken));
  }
  return out;
}

function named(s: UniqueSpec, table: string, taken: Set<string>, label: 'key' | 'idx' = 'key', indexOnly = false): UniqueConstraint {
  const name = s.name ?? chooseIndexName(table, s.columns, label, taken);
  if (s.name !== undefined && taken.has(name)) throw new FloeError(SqlState.duplicateTable, `relation "${name}" already exists`);
  taken.add(name);
  return {
    kind: 'unique', name, columns: [...s.columns],
    ...(indexOnly ? { indexOnly: true } : {}), ...(s.nullsNotDistinct ? { nullsNotDistinct: true } : {}),
    ...(s.deferrable !== undefined ? { deferrable: s.deferrable } : {}),
  };
}

/** ALTER TABLE t ADD [CONSTRAINT name] UNIQUE (…): the lake checks the rows already there. */
export async function addUniqueConstraint(w: Warehouse, table: TableMetadata, spec: UniqueSpec): Promise<TableMetadata> {
  for (const col of spec.columns) {
    if (!table.columns.some((c) => c.name === col)) throw new FloeError(SqlState.undefinedColumn, `column "${col}" named in key does not exist`);
  }
  const constraint = named(spec, table.name, relationNames(w, table.namespace));
  return w.alterTable(table.namespace, table.name, { kind: 'addConstraint', constraint });
}

/**
 * CREATE [UNIQUE] INDEX. A unique one is recorded as an index-only unique constraint
 * (enforced like UNIQUE, shown in pg_index but not pg_constraint); a plain one as an
 * index constraint, which the lake's scans use to skip files.
 */
export async function createIndex(w: Warehouse, c: CreateIndex, notice: (message: string) => void): Promise<string> {
  const table = w.getTable(c.table.namespace, c.table.name);
  if (table === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
  for (const col of [...c.columns, ...c.include]) {
    if (!table.columns.some((x) => x.name === col)) throw new FloeError(SqlState.undefinedColumn, `column "${col}" does not exist`);
  }
  const expressionKeys = c.keys.some((k) => k.expr !== undefined);
  if (c.unique && (expressionKeys || c.predicate !== undefined)) {
    // Uniqueness is enforced by src/lake over column values; it cannot evaluate SQL expressions.
    throw new FloeError(SqlState.featureNotSupported, `unique indexes ${expressionKeys ? 'on expressions' : 'with a WHERE clause (partial)'} are not supported`, {
      hint: 'Use a plain index, or a UNIQUE constraint on columns.',
    });
  }
  // Keys are kept as written only when they say more than the column list.
  const keys = c.keys.some((k) => k.expr !== undefined || k.descending !== undefined || k.nullsFirst !== undefined) ? { keys: c.keys } : {};
  const include = c.include.length > 0 ? { include: c.include } : {};
  const taken = relationNames(w, table.namespace);
  if (c.name !== undefined && taken.has(c.name)) {
    if (c.ifNotExists) {
      notice(`relation "${c.name}" already exists, skipping`);
      return 'CREATE INDEX';
    }
    throw new FloeError(SqlState.duplicateTable, `relation "${c.name}" already exists`);
  }
  if (!c.unique) {
    const name = c.name ?? chooseIndexName(table.name, [...c.keys.map(indexColumnName), ...c.include], 'idx', taken);
    await w.alterTable(table.namespace, table.name, {
      kind: 'addConstraint',
      constraint: {
        kind: 'index', name, columns: [...c.columns], method: c.method, ...keys, ...include,
        ...(c.predicate !== undefined ? { predicate: c.predicate } : {}), ...(c.expressionColumns.length > 0 ? { expressionColumns: c.expressionColumns } : {}),
      },
    });
    return 'CREATE INDEX';
  }
  const constraint = named({ ...(c.name !== undefined ? { name: c.name } : {}), columns: c.columns, nullsNotDistinct: c.nullsNotDistinct }, table.name, taken, 'idx', true);
  await w.alterTable(table.namespace, table.name, { kind: 'addConstraint', constraint: { ...constraint, ...keys, ...include } });
  return 'CREATE INDEX';
}

/** PostgreSQL's FigureIndexColname: a column's name, a function call's name, else `expr`. */
function indexColumnName(k: IndexKey): string {
  if (k.column !== undefined) return k.column;
  return /^([a-z_][a-z0-9_$]*)\s*\(/i.exec(k.expr ?? '')?.[1]?.toLowerCase() ?? 'expr';
}

/**
 * DROP INDEX [IF EXISTS] name, …, looked up along the search path. An index drops its
 * constraint record; the index behind a UNIQUE constraint is refused (2BP01), as in
 * PostgreSQL; an unknown name is 42704 (a NOTICE with IF EXISTS).
 */
export async function dropIndex(w: Warehouse, c: DropIndex, searchPath: readonly string[], notice: (message: string) => void): Promise<string> {
  // Every name is resolved before anything is dropped, so a bad one leaves all indexes in place.
  const drops: { owner: TableMetadata; index: IndexConstraint }[] = [];
  for (const n of c.names) {
    const found = findIndex(w, n.schema !== undefined ? [n.schema] : searchPath, n.name);
    if (found === undefined) {
      if (!c.ifExists) throw new FloeError(SqlState.undefinedObject, `index "${n.name}" does not exist`);
      notice(`index "${n.name}" does not exist, skipping`);
      continue;
    }
    if (found.index.kind === 'unique' && found.index.indexOnly !== true) {
      throw new FloeError('2BP01', `cannot drop index ${found.index.name} because constraint ${found.index.name} on table ${found.owner.name} requires it`, {
        hint: `You can drop constraint ${found.index.name} on table ${found.owner.name} instead.`,
      });
    }
    drops.push(found);
  }
  for (const d of drops) await w.alterTable(d.owner.namespace, d.owner.name, { kind: 'dropConstraint', name: d.index.name });
  return 'DROP INDEX';
}

/** An index of the first schema that has one by this name; a primary key's index cannot be dropped alone (2BP01). */
export function findIndex(w: Warehouse, schemas: readonly string[], name: string): { owner: TableMetadata; index: IndexConstraint } | undefined {
  for (const s of schemas) {
    if (!w.listNamespaces().includes(s)) continue;
    for (const t of w.listTables(s)) {
      if (t.primaryKey.length > 0 && `${t.name}_pkey` === name) {
        throw new FloeError('2BP01', `cannot drop index ${name} because constraint ${name} on table ${t.name} requires it`, {
          hint: `You can drop constraint ${name} on table ${t.name} instead.`,
        });
      }
      const index = t.constraints.find((x): x is IndexConstraint => (x.kind === 'unique' || x.kind === 'index') && x.name === name);
      if (index !== undefined) return { owner: t, index };
    }
  }
  return undefined;
}
