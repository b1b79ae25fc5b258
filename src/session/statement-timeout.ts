import { FloeError } from '../common/floe-error.js';
import type { StatementResult } from '../common/session-handler.js';

/** A statement's signal: the wire's (CancelRequest, shutdown, pg_cancel_backend) joined with statement_timeout's timer. */
export interface StatementTimer {
  readonly signal: AbortSignal;
  stop(): void;
}

export function statementTimeoutError(): FloeError {
  return new FloeError('57014', 'canceling statement due to statement timeout');
}

/** Starts statement_timeout (ms; 0 is off) for one statement, as PostgreSQL does for each statement of a query string. */
export function startStatementTimer(outer: AbortSignal, timeoutMs: number): StatementTimer {
  if (!(timeoutMs > 0)) return { signal: outer, stop: () => undefined };
  const inner = new AbortController();
  const onOuter = (): void => inner.abort(outer.reason);
  if (outer.aborted) inner.abort(outer.reason);
  else outer.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(() => inner.abort(statementTimeoutError()), timeoutMs).unref();
  return {
    signal: inner.signal,
    stop: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}

/** Keeps the timer running while a rows or COPY OUT result streams, and stops it when the stream ends. */
export function timedResult(result: StatementResult, timer: StatementTimer): StatementResult {
  switch (result.kind) {
    case 'rows':
      return { ...result, batches: stopAfter(result.batches, timer) };
    case 'copyOut':
      return { ...result, chunks: stopAfter(result.chunks, timer) };
    default:
      timer.stop();
      return result;
  }
}

async function* stopAfter<T>(items: AsyncIterable<T>, timer: StatementTimer): AsyncIterable<T> {
  try {
    yield* items;
  } finally {
    timer.stop();
  }
}
