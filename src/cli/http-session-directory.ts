import { isoOfMicros, type ConnectedSession, type SessionDirectory } from '../http/index.js';
import type { SessionRegistry } from '../session/index.js';

/** The server's session registry (what pg_stat_activity and pg_cancel_backend read) as the management API sees it. */
export function httpSessionDirectory(registry: SessionRegistry): SessionDirectory {
  return {
    list: () => registry.list().map((s): ConnectedSession => {
      const a = s.activity();
      return {
        pid: a.pid, user: a.usename, database: a.datname, applicationName: a.applicationName, clientAddress: a.clientAddr,
        backendStart: isoOfMicros(a.backendStartMicros)!, state: a.state, query: a.query, queryStart: isoOfMicros(a.queryStartMicros),
        transactionStart: isoOfMicros(a.xactStartMicros), waitEvent: a.waitEvent,
      };
    }),
    cancel(pid) {
      const s = registry.get(pid);
      s?.cancel();
      return s !== undefined;
    },
  };
}
