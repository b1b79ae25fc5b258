import type { Logger } from 'pino';
import { FloeError } from '../common/floe-error.js';
import { ClientGone } from './client-gone.js';
import type { StatementResult } from './session-handler.js';
import type { SocketReader } from './socket-reader.js';
import type { SocketWriter } from './socket-writer.js';
import { statementCanceled } from './statement-canceled.js';
import { BinaryCopyDecoder, binaryCopyHeader, binaryCopyTrailer, encodeBinaryCopyRows } from './binary-copy.js';
import type { CodecContext } from './codecs/codec-context.js';

/** The COPY sub-protocols, run by a connection inside a statement. */
export interface CopyIo {
  readonly reader: SocketReader;
  readonly writer: SocketWriter;
  readonly logger: Logger;
  /** For binary COPY's codecs. */
  readonly ctx?: CodecContext;
}

/** Binary COPY TO: the session's rows framed as one PGCOPY stream, one CopyData per batch. */
async function* binaryCopyChunks(
  result: Extract<StatementResult, { kind: 'copyOut' }>, ctx: CodecContext, rows: { n: number },
): AsyncIterable<Uint8Array> {
  const oids = result.columnOids ?? [];
  yield binaryCopyHeader();
  for await (const batch of result.rowBatches!) {
    rows.n += batch.numRows;
    if (batch.numRows > 0) yield encodeBinaryCopyRows(batch, oids, ctx);
  }
  yield binaryCopyTrailer();
}

/** COPY TO STDOUT: CopyOutResponse, one CopyData per chunk, CopyDone, CommandComplete; returns the tag sent. */
export async function sendCopyOut(io: CopyIo, result: Extract<StatementResult, { kind: 'copyOut' }>, signal: AbortSignal): Promise<string> {
  const format = result.format === 'binary' ? 1 : 0;
  io.writer.send({
    kind: 'CopyOutResponse', format, columnFormats: new Array<number>(result.columnCount).fill(format),
  });
  let rows = 0;
  const binaryRows = { n: 0 };
  const source = result.rowBatches !== undefined ? binaryCopyChunks(result, io.ctx ?? { timeZone: 'UTC' }, binaryRows) : result.chunks;
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason ?? statementCanceled();
      const next = await iterator.next();
      if (next.done === true) break;
      const chunk = next.value;
      if (format === 0) {
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
      } else {
        rows++;
      }
      io.writer.send({ kind: 'CopyData', data: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
      await io.writer.maybeFlush();
    }
  } catch (e) {
    await iterator.return?.().catch(() => undefined);
    throw e;
  }
  io.writer.send({ kind: 'CopyDone' });
  const tag = result.commandTag(result.rowBatches !== undefined ? binaryRows.n : rows);
  io.writer.send({ kind: 'CommandComplete', tag });
  return tag;
}

/**
 * COPY FROM STDIN: CopyInResponse, then CopyData into the sink until CopyDone (CommandComplete)
 * or CopyFail / cancel / a stray message (the sink is failed and an error thrown). Returns the tag sent.
 */
export async function receiveCopyIn(
io: CopyIo, result: Extract<StatementResult, { kind: 'copyIn' }>, mode: 'simple' | 'extended', signal: AbortSignal,
): Promise<string> {
  const format = result.format === 'binary' ? 1 : 0;
  io.writer.send({
    kind: 'CopyInResponse', format, columnFormats: new Array<number>(result.columnCount).fill(format),
  });
  await io.writer.flush();
  const sink = result.sink;
  const decoder = format === 1 && result.columnOids !== undefined ? new BinaryCopyDecoder(result.columnOids, io.ctx ?? { timeZone: 'UTC' }) : undefined;
  const abandon = async (reason: string): Promise<void> => {
    try {
      await sink.fail(reason);
    } catch (e) {
      io.logger.warn({ err: e }, 'copy sink failed to abort');
    }
  };
  for (;;) {
    const m = await io.reader.next(signal);
    if (m === 'aborted') {
      // The client's remaining CopyData is dropped by the idle loop (simple) or the discard state (extended).
      await abandon('COPY canceled');
      throw signal.reason ?? statementCanceled();
    }
    if (m === null) {
      await abandon('connection closed during COPY');
      throw new ClientGone();
    }
    switch (m.kind) {
      case 'CopyData':
        try {
          if (decoder !== undefined) {
            const rows = decoder.push(m.data);
            if (rows.length > 0) await sink.writeRows!(rows);
          } else {
            await sink.write(m.data);
          }
        } catch (e) {
          await abandon(e instanceof Error ? e.message : String(e));
          // The client keeps sending CopyData; the idle loop (simple) or the discard state (extended) drops it.
          throw e;
        }
        break;
      case 'CopyDone': {
        let tag: string;
        try {
          decoder?.finish();
          tag = await sink.finish();
        } catch (e) {
          await abandon(e instanceof Error ? e.message : String(e));
          throw e;
        }
        io.writer.send({ kind: 'CommandComplete', tag });
        return tag;
      }
      case 'CopyFail':
        await abandon(m.reason);
        throw new FloeError('57014', `COPY from stdin failed: ${m.reason}`);
      case 'Flush':
      case 'Sync':
        if (mode === 'extended') break;
        await abandon('unexpected message during COPY');
        throw new FloeError('08P01', `unexpected message type 0x${(m.kind === 'Sync' ? 0x53 : 0x48).toString(16).toUpperCase()} during COPY from stdin`);
      case 'Terminate':
        await abandon('connection terminated during COPY');
        throw new ClientGone();
      default:
        await abandon('unexpected message during COPY');
        throw new FloeError('08P01', `unexpected message ${m.kind} during COPY from stdin`, { severity: 'FATAL' });
    }
  }
}
