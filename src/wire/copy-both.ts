import { FloeError } from '../common/floe-error.js';
import { ClientGone } from './client-gone.js';
import type { CopyIo } from './copy-protocol.js';
import type { CopyBothChannel, StatementResult } from './session-handler.js';
import { statementCanceled } from './statement-canceled.js';

/**
 * CopyBoth (the streaming replication sub-protocol's carrier): CopyBothResponse, then the
 * session's stream runs with CopyData both ways. When it returns — the client sent
 * CopyDone, or the session ended the stream — the wire sends what a walsender sends to end
 * START_REPLICATION: CopyDone, CommandComplete "COPY 0" (the copy's end) and CommandComplete
 * with the command's own tag. A PostgreSQL subscriber's walreceiver reads both completions
 * (libpqrcv_endstreaming): with one, its table-sync worker fails as it leaves the stream,
 * and the table never becomes ready.
 */
export async function runCopyBoth(io: CopyIo, result: Extract<StatementResult, { kind: 'copyBoth' }>, signal: AbortSignal): Promise<void> {
  io.writer.send({ kind: 'CopyBothResponse', format: 0, columnFormats: [] });
  await io.writer.flush();
  let clientDone = false;

  const nextPayload = async (until: AbortSignal): Promise<Uint8Array | 'done' | 'waited'> => {
    for (;;) {
      const m = await io.reader.next(until);
      if (m === 'aborted') {
        if (signal.aborted) throw signal.reason ?? statementCanceled();
        return 'waited';
      }
      if (m === null) throw new ClientGone();
      switch (m.kind) {
        case 'CopyData':
          return m.data;
        case 'CopyDone':
          clientDone = true;
          return 'done';
        case 'CopyFail':
          throw new FloeError('57014', `COPY from stdin failed: ${m.reason}`);
        case 'Terminate':
          throw new ClientGone();
        case 'Flush':
        case 'Sync':
          continue;
        default:
          throw new FloeError('08P01', `unexpected message ${m.kind} during COPY`, { severity: 'FATAL' });
      }
    }
  };

  const channel: CopyBothChannel = {
    send: (data) => io.writer.send({ kind: 'CopyData', data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }),
    flush: () => io.writer.flush(),
    receive: async (wait) => {
      if (clientDone) return 'done';
      // Either signal ends the wait, and both listeners go with it: a long stream waits many times on one statement signal.
      const either = new AbortController();
      const stop = (): void => either.abort();
      wait.addEventListener('abort', stop, { once: true });
      signal.addEventListener('abort', stop, { once: true });
      if (wait.aborted || signal.aborted) either.abort();
      try {
        return await nextPayload(either.signal);
      } finally {
        wait.removeEventListener('abort', stop);
        signal.removeEventListener('abort', stop);
      }
    },
  };
  await result.run(channel, signal);
  io.writer.send({ kind: 'CopyDone' });
  io.writer.send({ kind: 'CommandComplete', tag: 'COPY 0' });
  io.writer.send({ kind: 'CommandComplete', tag: result.commandTag });
}
