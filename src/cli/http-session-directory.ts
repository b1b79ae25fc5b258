import { isoOfMicros, type ConnectedSession, type SessionDirectory } from '../http/index.js';
import { processStatementStatistics } from '../session/index.js';
import type { SessionRegistry, StatementStatistics } from '../session/index.js';

/**
 * The server's session registry (what pg_stat_activity and pg_cancel_backend read) and its
 * statement statistics (what floe_stat_statements reads) as the management API sees them.
 */
export function httpSessionDirectory(registry: SessionRegistry, statistics: StatementStatistics = processStatementStatistics): SessionDirectory {
  return {
    list: () => registry.list().map((s): ConnectedSession => {
      const a = s.activity();
      return {
        pid: a.pid, user: a.usename, database: a.datname, applicationName: a.applicationName, clientAddress: a.clientAddr,
        backendStart: isoOfMicros(a.backendStartMicros)!, state: a.state, query: a.query, queryStart: isoOfMicros(a.queryStartMicros),
        transactionStart: isoOfMicros(a.xactStartMicros), waitEvent: a.waitEvent,
      };
    }),
    statements: () => statistics.rows().map((r) => ({
      user: r.user, query: r.query, calls: r.calls, totalMs: r.totalExecTime, meanMs: r.meanExecTime, maxMs: r.maxExecTime, rows: r.rows,
    })),
    cancel(pid) {
      const s = registry.get(pid);
      s?.cancel();
      return s !== undefined;
    },
  };
}
