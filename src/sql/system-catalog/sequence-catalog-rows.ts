import { typeOid } from '../../common/sql-type.js';
import type { SqlType } from '../../common/sql-type.js';
import { BOOTSTRAP_SUPERUSER_OID, PG_CLASS_OID, namespaceOid } from './catalog-oids.js';
import { catalogAcls } from './catalog-acls.js';
import type { CatalogSequenceInfo, CatalogTableInfo, CatalogView } from './catalog-view.js';
import { lakeWarehouse } from './catalog-view.js';

/**
 * Sequences in the catalogs: pg_class (relkind 'S'), pg_attribute (a sequence's three
 * columns), pg_sequence, pg_sequences, information_schema.sequences, pg_depend (OWNED BY:
 * 'a' for serial and OWNED BY, 'i' for identity), and the defaults that call nextval.
 */
type Row = Record<string, unknown>;

const int8: SqlType = { kind: 'int8' };
const bool: SqlType = { kind: 'bool' };
export const SEQUENCE_COLUMNS: readonly { name: string; type: SqlType }[] = [
  { name: 'last_value', type: int8 }, { name: 'log_cnt', type: int8 }, { name: 'is_called', type: bool },
];

const TYPE_NAMES = { int2: 'smallint', int4: 'integer', int8: 'bigint' } as const;

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replaceAll('"', '""')}"`;
}

/** pg_class rows of the sequences, beside the tables' (the caller spreads its own defaults first). */
export function pgClassSequenceRows(v: CatalogView, defaults: Row): Row[] {
  return v.sequences.map((s) => ({
    ...defaults, oid: s.id, relname: s.name, relnamespace: namespaceOid(s.namespace), relam: 0, relfilenode: s.id,
    relkind: 'S', relnatts: 3, reltuples: 1,
  }));
}

export function sequenceAttributeRows(v: CatalogView, add: (relid: number, num: number, name: string, type: SqlType) => void): void {
  for (const s of v.sequences) SEQUENCE_COLUMNS.forEach((c, i) => add(s.id, i + 1, c.name, c.type));
}

/** pg_attribute.attidentity: 'a' (ALWAYS), 'd' (BY DEFAULT) or ''. */
export function attidentity(c: CatalogTableInfo['columns'][number]): string {
  return c.identity === undefined ? '' : c.identity.generation === 'always' ? 'a' : 'd';
}

function pgSequence(v: CatalogView): Row[] {
  return v.sequences.map((s) => ({
    seqrelid: s.id, seqtypid: typeOid({ kind: s.dataType }), seqstart: s.start, seqincrement: s.increment,
    seqmax: s.maxValue, seqmin: s.minValue, seqcache: s.cache, seqcycle: s.cycle,
  }));
}

function lastValue(v: CatalogView, s: CatalogSequenceInfo): bigint | null {
  const state = lakeWarehouse(v.ctx.warehouse)?.sequenceState?.(s.id);
  return state === undefined || !state.isCalled ? null : state.lastValue;
}

function pgSequences(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  return v.sequences.map((s) => ({
    schemaname: s.namespace, sequencename: s.name, sequenceowner: acls.userName(acls.relation(s.id).owner), data_type: typeOid({ kind: s.dataType }),
    start_value: s.start, min_value: s.minValue, max_value: s.maxValue, increment_by: s.increment, cycle: s.cycle,
    cache_size: s.cache, last_value: lastValue(v, s),
  }));
}

function isIdentitySequence(v: CatalogView, s: CatalogSequenceInfo): boolean {
  return v.tables.some((t) => t.columns.some((c) => c.identity?.sequenceId === s.id));
}

/** PostgreSQL leaves identity columns' sequences out of information_schema.sequences. */
function isSequences(v: CatalogView): Row[] {
  return v.sequences.filter((s) => !isIdentitySequence(v, s)).map((s) => ({
    sequence_catalog: v.ctx.database, sequence_schema: s.namespace, sequence_name: s.name, data_type: TYPE_NAMES[s.dataType],
    numeric_precision: s.dataType === 'int2' ? 16 : s.dataType === 'int4' ? 32 : 64, numeric_precision_radix: 2, numeric_scale: 0,
    start_value: String(s.start), minimum_value: String(s.minValue), maximum_value: String(s.maxValue),
    increment: String(s.increment), cycle_option: s.cycle ? 'YES' : 'NO',
  }));
}

function pgDepend(v: CatalogView): Row[] {
  const rows: Row[] = [];
  for (const s of v.sequences) {
    if (s.ownedBy === undefined) continue;
    const t = v.tables.find((x) => x.id === s.ownedBy!.tableId);
    const at = t?.columns.findIndex((c) => c.fieldId === s.ownedBy!.fieldId) ?? -1;
    if (t === undefined || at < 0) continue;
    rows.push({
      classid: PG_CLASS_OID, objid: s.id, objsubid: 0, refclassid: PG_CLASS_OID, refobjid: t.id, refobjsubid: at + 1,
      deptype: t.columns[at]!.identity?.sequenceId === s.id ? 'i' : 'a',
    });
  }
  return rows;
}

/** `nextval(<oid>::regclass)` as PostgreSQL prints it: `nextval('name'::regclass)`, schema-qualified when off search_path. */
export function deparseSequenceCalls(v: CatalogView, expr: string): string {
  return expr.replace(/nextval\((\d+)::regclass\)/g, (whole, oid: string) => {
    const s = v.sequences.find((x) => x.id === Number(oid));
    if (s === undefined) return whole;
    const visible = v.ctx.searchPath.includes(s.namespace);
    const name = visible ? quoteIdent(s.name) : `${quoteIdent(s.namespace)}.${quoteIdent(s.name)}`;
    return `nextval('${name.replaceAll("'", "''")}'::regclass)`;
  });
}

/** information_schema.columns' identity columns for one column. */
export function identityColumns(v: CatalogView, c: CatalogTableInfo['columns'][number]): Row {
  if (c.identity === undefined) return {};
  const s = v.sequences.find((x) => x.id === c.identity!.sequenceId);
  return {
    is_identity: 'YES', identity_generation: c.identity.generation === 'always' ? 'ALWAYS' : 'BY DEFAULT',
    identity_start: s === undefined ? null : String(s.start), identity_increment: s === undefined ? null : String(s.increment),
    identity_maximum: s === undefined ? null : String(s.maxValue), identity_minimum: s === undefined ? null : String(s.minValue),
    identity_cycle: s?.cycle === true ? 'YES' : 'NO',
  };
}

export const sequenceRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.pg_sequence': pgSequence,
  'pg_catalog.pg_sequences': pgSequences,
  'pg_catalog.pg_depend': pgDepend,
  'information_schema.sequences': isSequences,
};

void BOOTSTRAP_SUPERUSER_OID;
