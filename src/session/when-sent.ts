import { commandTagRows } from '../common/command-tag-rows.js';
import type { RowBatch, StatementResult } from '../common/session-handler.js';

/**
 * Calls `done(rows)` once the wire has sent the whole result, with the rows it returned or
 * changed: at once for a command, when a rows or COPY TO stream ends (or the client closes
 * its portal early), when COPY FROM's sink finishes. A result that fails on the way is not
 * done: pg_stat_statements counts only statements that finish.
 */
export function whenSent(result: StatementResult, done: (rows: number) => void): StatementResult {
  switch (result.kind) {
    case 'rows':
      return { ...result, batches: countRows(result.batches, done) };
    case 'command':
      done(commandTagRows(result.tag));
      return result;
    case 'copyIn': {
      const sink = result.sink;
      return {
        ...result,
        sink: {
          write: (chunk) => sink.write(chunk),
          fail: (reason) => sink.fail(reason),
          finish: async () => {
            const tag = await sink.finish();
            done(commandTagRows(tag));
            return tag;
          },
          ...(sink.writeRows === undefined ? {} : { writeRows: (rows: readonly (readonly unknown[])[]) => sink.writeRows!(rows) }),
        },
      };
    }
    case 'copyOut':
      return {
        ...result,
        commandTag: (n: number) => {
          const tag = result.commandTag(n);
          done(commandTagRows(tag));
          return tag;
        },
      };
    case 'empty':
    case 'copyBoth':
      return result;
  }
}

async function* countRows(batches: AsyncIterable<RowBatch>, done: (rows: number) => void): AsyncIterable<RowBatch> {
  let rows = 0;
  let failed = false;
  try {
    for await (const b of batches) {
      rows += b.numRows;
      yield b;
    }
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    if (!failed) done(rows);
  }
}
