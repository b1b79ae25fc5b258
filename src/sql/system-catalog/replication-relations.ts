import { formatLsn, otherStreamer, processSlotRegistry } from '../../lake/index.js';
import type { PublicationMetadata, ReplicationSlotHolder, ReplicationSlotRecord } from '../../lake/index.js';
import type { CatalogTableInfo, CatalogView } from './catalog-view.js';
import { lakeWarehouse } from './catalog-view.js';
import { FLOE_DATABASE_OID } from './catalog-oids.js';

/**
 * pg_publication, pg_publication_rel, pg_publication_tables and pg_replication_slots from
 * the lake's publications and durable slots. pg_lsn columns are text (Floe has no pg_lsn
 * type; the text is the same). Whether a slot is streamed, and by which connection, and the
 * TEMPORARY slots come from this process's slot registry; a durable slot another gateway
 * streams, from its mark in the catalog.
 */
export interface CatalogReplication {
  listPublications(): readonly PublicationMetadata[];
  listSlots(): readonly ReplicationSlotRecord[];
  listSlotHolders(): readonly ReplicationSlotHolder[];
}

/** The two views PostgreSQL 15 has that catalog-shapes.ts did not list yet (oids as PostgreSQL 15 gives them). */
export const replicationRelationShapes = [
  {
    schema: 'pg_catalog', name: 'pg_publication_tables', oid: 12068, relkind: 'v',
    columns: 'pubname:name schemaname:name tablename:name attnames:name[] rowfilter:text',
  },
  {
    schema: 'pg_catalog', name: 'pg_replication_slots', oid: 12257, relkind: 'v',
    columns: 'slot_name:name plugin:name slot_type:text datoid:oid database:name temporary:bool active:bool active_pid:int4 '
      + 'xmin:oid catalog_xmin:oid restart_lsn:text confirmed_flush_lsn:text wal_status:text safe_wal_size:int8 two_phase:bool',
  },
] as const;

type Row = Record<string, unknown>;

const MEMBER_OID_BASE = 0x80000000;

function replicationOf(v: CatalogView): CatalogReplication | undefined {
  if (lakeWarehouse(v.ctx.warehouse) === undefined) return undefined;
  return (v.ctx.warehouse as { readonly replication?: CatalogReplication }).replication;
}

/** The relations a publication may name: tables and (a Floe extension: CDC out of a view's rows) materialized views. */
function publishable(v: CatalogView): CatalogTableInfo[] {
  return [...v.tables, ...v.materializedViews.map((view) => view.table)];
}

/**
 * The tables a publication sends: its members, or every permanent table for FOR ALL TABLES
 * (which, as in PostgreSQL, leaves materialized views out). Columns are the shown ones only.
 */
export function publishedTables(v: CatalogView, p: PublicationMetadata): CatalogTableInfo[] {
  if (p.allTables) return v.tables.filter((t) => !t.namespace.startsWith('pg_temp')).sort((a, b) => a.id - b.id);
  const byId = new Map(publishable(v).map((t) => [t.id, t]));
  return p.tableIds.flatMap((id) => byId.get(id) ?? []);
}

function pgPublication(v: CatalogView): Row[] {
  return (replicationOf(v)?.listPublications() ?? []).map((p) => ({
    oid: p.oid, pubname: p.name, pubowner: 10, puballtables: p.allTables, pubinsert: p.publish.insert, pubupdate: p.publish.update,
    pubdelete: p.publish.delete, pubtruncate: p.publish.truncate, pubviaroot: false,
  }));
}

function pgPublicationRel(v: CatalogView): Row[] {
  const live = new Set(publishable(v).map((t) => t.id));
  const members = (replicationOf(v)?.listPublications() ?? []).flatMap((p) => p.tableIds.filter((id) => live.has(id)).map((id) => ({ p, id })));
  // Membership rows have no oid of their own in the lake: they are numbered, in (publication, table) order, far above relation oids.
  return members.map(({ p, id }, i) => ({ oid: MEMBER_OID_BASE + i, prpubid: p.oid, prrelid: id, prqual: null, prattrs: null }));
}

function pgPublicationTables(v: CatalogView): Row[] {
  return (replicationOf(v)?.listPublications() ?? []).flatMap((p) => publishedTables(v, p).map((t) => ({
    pubname: p.name, schemaname: t.namespace, tablename: t.name, attnames: t.columns.map((c) => c.name), rowfilter: null,
  })));
}

function pgReplicationSlots(v: CatalogView): Row[] {
  const durable = replicationOf(v)?.listSlots();
  if (durable === undefined) return [];
  const holders = replicationOf(v)!.listSlotHolders();
  const row = (s: ReplicationSlotRecord, temporary: boolean): Row => {
    // Streamed here, or by another gateway of the warehouse (its connection's pid there).
    const pid = processSlotRegistry.activePid(s.name) ?? (temporary ? undefined : otherStreamer(holders, s.name));
    return {
      slot_name: s.name, plugin: s.plugin, slot_type: 'logical', datoid: FLOE_DATABASE_OID, database: s.database, temporary,
      active: pid !== undefined, active_pid: pid ?? null, xmin: null, catalog_xmin: 0, restart_lsn: formatLsn(s.restartLsn),
      confirmed_flush_lsn: formatLsn(s.confirmedFlushLsn), wal_status: 'reserved', safe_wal_size: null, two_phase: false,
    };
  };
  return [...durable.map((s) => row(s, false)), ...processSlotRegistry.listTemporary().map((s) => row(s, true))];
}

export const replicationRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.pg_publication': pgPublication,
  'pg_catalog.pg_publication_rel': pgPublicationRel,
  'pg_catalog.pg_publication_tables': pgPublicationTables,
  'pg_catalog.pg_replication_slots': pgReplicationSlots,
};
