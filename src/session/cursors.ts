import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { StatementResult } from '../common/session-handler.js';
import type { ResultColumn, UtilityCommand } from '../sql/index.js';
import { describeColumns, memoryRows, toRowBatch } from './result-columns.js';

interface Cursor {
  readonly columns: readonly ResultColumn[];
  readonly iterator: AsyncIterator<RecordBatch>;
  buffer: unknown[][];
  done: boolean;
  readonly hold: boolean;
}

/**
 * The session's SQL cursors (DECLARE … CURSOR, FETCH, MOVE, CLOSE): each a running
 * query read forward on demand. A cursor ends with its transaction unless declared
 * WITH HOLD, which lasts until CLOSE or the session's end.
 */
export class Cursors {
  readonly #cursors = new Map<string, Cursor>();

  /** The columns FETCH of `name` returns, for Describe; undefined for no such cursor. */
  columnsOf(name: string): readonly ResultColumn[] | undefined {
    return this.#cursors.get(name)?.columns;
  }

  /** DECLARE: `run` starts the query, once the name is known to be free. */
  declare(name: string, columns: readonly ResultColumn[], run: () => AsyncIterable<RecordBatch>, hold: boolean): void {
    if (this.#cursors.has(name)) throw new FloeError(SqlState.duplicateCursor, `cursor "${name}" already exists`);
    this.#cursors.set(name, { columns, iterator: run()[Symbol.asyncIterator](), buffer: [], done: false, hold });
  }

  async fetch(c: Extract<UtilityCommand, { kind: 'fetch' }>): Promise<StatementResult> {
    const cur = this.#cursors.get(c.cursor);
    if (!cur) throw new FloeError(SqlState.invalidCursorName, `cursor "${c.cursor}" does not exist`);
    if (c.direction !== 'forward' && !(c.direction === 'relative' && c.count === 0n)) {
      throw new FloeError(SqlState.featureNotSupported, 'cursor can only scan forward', { hint: 'Declare it with SCROLL option to enable backward scan.' });
    }
    const want = c.count === 'all' ? Infinity : Number(c.count);
    const types = cur.columns.map((col) => col.type);
    const rows: unknown[][] = [];
    while (rows.length < want) {
      if (cur.buffer.length === 0) {
        if (cur.done) break;
        const next = await cur.iterator.next();
        if (next.done) { cur.done = true; break; }
        const batch = toRowBatch(next.value, types);
        for (let r = 0; r < batch.numRows; r++) cur.buffer.push(batch.columns.map((col) => col.get(r)));
        continue;
      }
      const take = Math.min(want - rows.length, cur.buffer.length);
      rows.push(...cur.buffer.splice(0, take));
    }
    if (c.move) return { kind: 'command', tag: `MOVE ${rows.length}` };
    return memoryRows(describeColumns(cur.columns), rows, 'FETCH');
  }

  /** CLOSE name, or CLOSE ALL (null). */
  async close(name: string | null): Promise<void> {
    if (name === null) return this.closeAll(true);
    const cur = this.#cursors.get(name);
    if (!cur) throw new FloeError(SqlState.invalidCursorName, `cursor "${name}" does not exist`);
    this.#cursors.delete(name);
    await cur.iterator.return?.();
  }

  /** At a transaction's end the cursors it declared close; WITH HOLD ones too at DISCARD ALL and the session's end. */
  async closeAll(includingHeld: boolean): Promise<void> {
    for (const [name, c] of this.#cursors) {
      if (c.hold && !includingHeld) continue;
      this.#cursors.delete(name);
      await c.iterator.return?.();
    }
  }
}
