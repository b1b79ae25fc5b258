import { FLOE_DATABASE_OID } from './catalog-oids.js';
import { roleCatalogOf } from './role-rows.js';
import type { CatalogView } from './catalog-view.js';

type Row = Record<string, unknown>;

/** pg_stat_activity: every session of the server, from its session registry (only the caller's own row without one). */
export function pgStatActivityRows(v: CatalogView): Row[] {
  const server = v.ctx.server;
  if (server === undefined) {
    return [{
      datid: FLOE_DATABASE_OID, datname: v.ctx.database, pid: Number(v.ctx.settings.get('floe.backend_pid') ?? 0), usename: v.ctx.user,
      application_name: v.ctx.settings.get('application_name') ?? '', state: 'active', backend_type: 'client backend',
    }];
  }
  return server.activity().map((a) => ({
    datid: FLOE_DATABASE_OID, datname: a.datname, pid: a.pid, leader_pid: null, usesysid: roleCatalogOf(v.ctx)?.get(a.usename)?.oid ?? 0, usename: a.usename,
    application_name: a.applicationName, client_addr: a.clientAddr, client_hostname: null, client_port: a.clientPort,
    backend_start: a.backendStartMicros, xact_start: a.xactStartMicros, query_start: a.queryStartMicros,
    state_change: a.stateChangeMicros, wait_event_type: a.waitEventType, wait_event: a.waitEvent, state: a.state,
    backend_xid: null, backend_xmin: null, query_id: null, query: a.query, backend_type: a.backendType,
  }));
}

/** pg_locks: the advisory locks held and awaited (Floe takes no other locks a client could see). */
export function pgLocksRows(v: CatalogView): Row[] {
  return (v.ctx.server?.locks() ?? []).map((l) => ({
    locktype: 'advisory', database: FLOE_DATABASE_OID, relation: null, page: null, tuple: null, virtualxid: null,
    transactionid: null, classid: l.key.classid, objid: l.key.objid, objsubid: l.key.objsubid,
    virtualtransaction: `${l.pid}/1`, pid: l.pid, mode: l.mode, granted: l.granted, fastpath: false,
    waitstart: l.waitStartMicros,
  }));
}
