import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { PublishedActions } from '../../lake/index.js';
import type { BoundStatement } from '../bound-statement.js';
import type { PublicationDdl, PublicationTableRef } from '../publication-ddl.js';
import { positionOf, str, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { defElemValue } from './def-elem.js';
import { qualifyExisting } from './resolve-relation.js';

const ddl = (command: PublicationDdl): BoundStatement => ({ kind: 'ddl', command });

const ALL_ACTIONS: PublishedActions = { insert: true, update: true, delete: true, truncate: true };

/** WITH (publish = '…', publish_via_partition_root = …), as PostgreSQL parses them (42601 for anything else). */
function publicationOptions(options: readonly Raw[] | undefined): PublishedActions | undefined {
  let publish: PublishedActions | undefined;
  const seen = new Set<string>();
  for (const o of options ?? []) {
    const d = unwrap(o)[1];
    const name = String(d.defname);
    if (seen.has(name)) throw new FloeError(SqlState.syntaxError, 'conflicting or redundant options', { position: positionOf(o) });
    seen.add(name);
    if (name === 'publish') {
      const text = defElemValue(d.arg) ?? '';
      const wanted = { insert: false, update: false, delete: false, truncate: false };
      for (const part of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
        if (!(part in wanted)) throw new FloeError(SqlState.syntaxError, `unrecognized value for publication option "publish": "${part}"`);
        wanted[part as keyof typeof wanted] = true;
      }
      publish = wanted;
    } else if (name === 'publish_via_partition_root') {
      // Floe's partitions are not relations of their own: every change is published as its table's.
    } else {
      throw new FloeError(SqlState.syntaxError, `unrecognized publication parameter: "${name}"`);
    }
  }
  return publish;
}

/** The FOR TABLE list: FOR TABLES IN SCHEMA, column lists and row filters are not built. */
function publicationTables(ctx: BindContext, objects: readonly Raw[] | undefined): PublicationTableRef[] {
  const out: PublicationTableRef[] = [];
  for (const o of objects ?? []) {
    const spec = unwrap(o)[1];
    if (spec.pubobjtype !== 'PUBLICATIONOBJ_TABLE' || spec.pubtable === undefined) {
      throw new FloeError(SqlState.featureNotSupported, 'FOR TABLES IN SCHEMA is not supported; name the tables', { position: positionOf(o) });
    }
    const t = spec.pubtable;
    if (t.whereClause !== undefined) throw new FloeError(SqlState.featureNotSupported, 'publication row filters (WHERE) are not supported', { position: positionOf(t.whereClause) });
    if (t.columns !== undefined) throw new FloeError(SqlState.featureNotSupported, 'publication column lists are not supported', { position: positionOf(o) });
    const rv = t.relation;
    const schema: string | undefined = rv.schemaname;
    const name = String(rv.relname);
    out.push({ table: qualifyExisting(ctx, schema, name), written: schema === undefined ? name : `${schema}.${name}` });
  }
  return out;
}

/** CREATE PUBLICATION p [FOR TABLE t, … | FOR ALL TABLES] [WITH (…)]. */
export function bindCreatePublication(ctx: BindContext, n: Raw): BoundStatement {
  return ddl({
    kind: 'createPublication', name: String(n.pubname), allTables: Boolean(n.for_all_tables),
    tables: publicationTables(ctx, n.pubobjects), publish: publicationOptions(n.options) ?? ALL_ACTIONS,
  });
}

/** ALTER PUBLICATION p ADD | DROP | SET TABLE …, or SET (publish = …). */
export function bindAlterPublication(ctx: BindContext, n: Raw): BoundStatement {
  const publish = publicationOptions(n.options);
  if (n.options !== undefined) return ddl({ kind: 'alterPublication', name: String(n.pubname), action: 'options', tables: [], ...(publish ? { publish } : {}) });
  const action = n.action === 'AP_AddObjects' ? 'add' : n.action === 'AP_DropObjects' ? 'drop' : 'set';
  return ddl({ kind: 'alterPublication', name: String(n.pubname), action, tables: publicationTables(ctx, n.pubobjects) });
}

/** DROP PUBLICATION [IF EXISTS] p, … [CASCADE | RESTRICT]. */
export function bindDropPublication(n: Raw): BoundStatement {
  return ddl({ kind: 'dropPublication', names: ((n.objects as Raw[] | undefined) ?? []).map((o) => str(o)), ifExists: Boolean(n.missing_ok) });
}
