import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { mergeEngineOf } from '../../lake/index.js';
import type { PublicationMetadata, PublishedActions, TableMetadata, Warehouse } from '../../lake/index.js';

/** A table a stream sends, with the change kinds any of the named publications publishes for it. */
export interface PublishedTable {
  readonly table: TableMetadata;
  readonly publish: PublishedActions;
}

/**
 * The tables the named publications cover, now (FOR ALL TABLES takes tables created later,
 * as PostgreSQL's does); 42704 for a publication that does not exist. Tables with a combining
 * merge engine are left out: their change rows are what was written, not what a key holds
 * after (CREATE/ALTER PUBLICATION refuses them by name).
 */
export function publishedTables(warehouse: Warehouse, names: readonly string[]): PublishedTable[] {
  const all = warehouse.replication.listPublications();
  const pubs: PublicationMetadata[] = names.map((n) => {
    const p = all.find((x) => x.name === n);
    if (p === undefined) throw new FloeError(SqlState.undefinedObject, `publication "${n}" does not exist`);
    return p;
  });
  const out = new Map<number, { table: TableMetadata; publish: { insert: boolean; update: boolean; delete: boolean; truncate: boolean } }>();
  const tables = warehouse.listTables().filter((t) => !t.namespace.startsWith('pg_temp') && mergeEngineOf(t).kind === 'deduplicate');
  for (const p of pubs) {
    const members = p.allTables ? tables : tables.filter((t) => p.tableIds.includes(t.id));
    for (const table of members) {
      let entry = out.get(table.id);
      if (entry === undefined) out.set(table.id, entry = { table, publish: { insert: false, update: false, delete: false, truncate: false } });
      entry.publish.insert ||= p.publish.insert;
      entry.publish.update ||= p.publish.update;
      entry.publish.delete ||= p.publish.delete;
      entry.publish.truncate ||= p.publish.truncate;
    }
  }
  return [...out.values()];
}

/** PostgreSQL's publication_names value: comma-separated identifiers, double-quoted ones kept as written, others lower-cased. */
export function parseNameList(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const s = text;
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    let name = '';
    if (s[i] === '"') {
      i++;
      for (;;) {
        if (i >= s.length) throw new FloeError(SqlState.invalidParameterValue, 'invalid publication_names syntax');
        if (s[i] === '"') {
          if (s[i + 1] === '"') { name += '"'; i += 2; continue; }
          i++;
          break;
        }
        name += s[i++];
      }
    } else {
      const start = i;
      while (i < s.length && s[i] !== ',' && !/\s/.test(s[i]!)) i++;
      name = s.slice(start, i).toLowerCase();
      if (name === '') throw new FloeError(SqlState.invalidParameterValue, 'invalid publication_names syntax');
    }
    out.push(name);
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) return out;
    if (s[i] !== ',') throw new FloeError(SqlState.invalidParameterValue, 'invalid publication_names syntax');
    i++;
  }
}
