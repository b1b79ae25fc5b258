import type { SessionHandler } from '../common/session-handler.js';
import type { RefreshRunner } from '../service/index.js';

/**
 * The refresh service's hands: a session of the bootstrap superuser (materialized views are
 * refreshed as PostgreSQL refreshes them, by their owner's right, which the superuser holds),
 * running `CALL refresh_materialized_view` and reading back the mode and duration it reports.
 * One session serves every refresh, one at a time.
 */
export function materializedViewRefreshRunner(openSession: () => SessionHandler): RefreshRunner {
  let session: Promise<SessionHandler> | undefined;
  const started = (): Promise<SessionHandler> => (session ??= (async () => {
    const s = openSession();
    await s.start({ parameterStatus: () => undefined, notice: () => undefined });
    return s;
  })());
  return async (view, mode) => {
    const s = await started();
    const name = `${quoteIdent(view.namespace)}.${quoteIdent(view.name)}`;
    const sql = `CALL refresh_materialized_view('${name.replaceAll("'", "''")}', '${mode}')`;
    let out = { mode: '', durationMs: 0 };
    for await (const result of s.simpleQuery(sql, new AbortController().signal)) {
      if (result.kind !== 'rows') continue;
      for await (const batch of result.batches) {
        if (batch.numRows > 0) out = { mode: String(batch.columns[0]!.get(0)), durationMs: Number(batch.columns[1]!.get(0)) };
      }
    }
    return out;
  };
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
