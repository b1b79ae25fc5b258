import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { typeOid, type SqlType } from '../../common/sql-type.js';
import type { CopyInSink, RowBatch, StatementResult } from '../../common/session-handler.js';
import { executePlan, parseValue, type TextIoSettings } from '../../exec/index.js';
import type { BoundStatement, CopyOptions, UtilityCommand } from '../../sql/index.js';
import { binaryCopyValue, copyRowsText, formatCopyRow, parseCopyBytes } from '../copy-format.js';
import { toRowBatch } from '../result-columns.js';
import type { SessionContext } from '../session-context.js';
import type { UtilityHandlers } from './utility-handler.js';
import { enforceChecks, evalDefaults } from '../internal-statements.js';

type QueryBound = Extract<BoundStatement, { kind: 'query' }>;

/** COPY FROM STDIN (text, CSV, binary; column defaults and CHECK constraints applied) and COPY TO STDOUT. */
export const copyCommands: Pick<UtilityHandlers, 'copyFrom' | 'copyTo'> = {
  copyFrom: (ctx, c) => copyFrom(ctx, c),
  copyTo: (ctx, c, signal) => copyTo(ctx, c, signal),
};

async function copyFrom(ctx: SessionContext, c: Extract<UtilityCommand, { kind: 'copyFrom' }>): Promise<StatementResult> {
  if (c.source !== 'stdin') throw new FloeError(SqlState.featureNotSupported, 'COPY FROM a server file is not supported', { hint: "Use COPY … FROM STDIN (psql's \\copy)." });
  const binary = c.options.format === 'binary';
  const table = ctx.deps.warehouse.getTable(c.table.namespace, c.table.name);
  if (!table) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
  const chunks: Buffer[] = [];
  // Binary COPY: the wire decodes the rows (canonical values of the columns' types).
  const decoded: (readonly unknown[])[] = [];
  const sink: CopyInSink = {
    async write(chunk) { chunks.push(Buffer.from(chunk)); },
    async writeRows(rows) { for (const r of rows) decoded.push(r); },
    async fail() { chunks.length = 0; decoded.length = 0; },
    async finish() {
      return ctx.guard(async () => {
        const rows: readonly (readonly unknown[])[] = binary ? decoded : parseCopyBytes(Buffer.concat(chunks), c.options);
        const settings = ctx.textSettings();
        const byName = new Map(c.columns.map((col, i) => [col.name, i]));
        const defaults = new Map<string, unknown[]>();
        for (const tc of table.columns) {
          const expr = tc.identity !== undefined ? `nextval(${tc.identity.sequenceId}::regclass)` : tc.defaultExpr;
          if (!byName.has(tc.name) && expr !== undefined) defaults.set(tc.name, await evalDefaults(ctx, expr, tc.type, rows.length));
        }
        const columns = table.columns.map((tc) => {
          const at = byName.get(tc.name);
          if (at === undefined && defaults.has(tc.name)) return defaults.get(tc.name)!;
          return rows.map((r, line) => {
            if (r.length !== c.columns.length) {
              throw new FloeError('22P04', r.length < c.columns.length ? `missing data for column "${c.columns[r.length]!.name}"` : 'extra data after last expected column', { detail: `COPY ${table.name}, line ${line + 1}` });
            }
            const text = at === undefined ? null : r[at]!;
            if (text === null) {
              if (!tc.nullable || table.primaryKey.includes(tc.name)) throw new FloeError(SqlState.notNullViolation, `null value in column "${tc.name}" of relation "${table.name}" violates not-null constraint`);
              return null;
            }
            return binary ? binaryCopyValue(text, tc.type, settings) : parseValue(text as string, tc.type, settings);
          });
        });
        if (rows.length > 0) await enforceChecks(ctx, table, columns);
        if (rows.length > 0) {
          const { lake, autocommit } = await ctx.transaction.writeTxn(ctx.settings.get('default_transaction_isolation'));
          try {
            // UPSERT is the blind bulk upsert; plain COPY is INSERT (23505 for a live key).
            if (c.options.upsert === true) await lake.upsert(table, c.branch ?? 'main', columns);
            else await lake.insert(table, c.branch ?? 'main', columns);
            if (autocommit) await ctx.commitLake(lake);
          } catch (e) {
            if (autocommit && lake.state === 'open') await lake.abort().catch(() => undefined);
            throw e;
          }
        }
        return `COPY ${rows.length}`;
      });
    },
  };
  if (binary) return { kind: 'copyIn', format: 'binary', columnCount: c.columns.length, columnOids: c.columns.map((col) => typeOid(col.type)), sink };
  return { kind: 'copyIn', format: 'text', columnCount: c.columns.length, sink };
}

async function copyTo(ctx: SessionContext, c: Extract<UtilityCommand, { kind: 'copyTo' }>, signal: AbortSignal): Promise<StatementResult> {
  if (c.target !== 'stdout') throw new FloeError(SqlState.featureNotSupported, 'COPY TO a server file is not supported', { hint: "Use COPY … TO STDOUT (psql's \\copy)." });
  const q: QueryBound = c.query;
  const types = q.columns.map((col) => col.type);
  const settings = ctx.textSettings();
  const batches = executePlan(ctx.physicalPlan(q), ctx.execContext([], signal, ctx.transaction.current?.lake));
  const out: CopyOutRows = { ctx, batches, types, count: 0 };
  const options = c.options;
  if (options.format === 'binary') {
    return {
      kind: 'copyOut', format: 'binary', columnCount: q.columns.length, chunks: noChunks(), rowBatches: copyRowBatches(out),
      columnOids: types.map(typeOid), commandTag: () => `COPY ${out.count}`,
    };
  }
  return {
    kind: 'copyOut', format: 'text', columnCount: q.columns.length, chunks: copyTextChunks(out, q.columns, settings, options),
    commandTag: () => `COPY ${out.count}`,
  };
}

/** COPY TO's query: its batches, read as rows of `types`; `count` adds up the rows read from them, for the tag. */
interface CopyOutRows {
  readonly ctx: SessionContext;
  readonly batches: AsyncIterable<RecordBatch>;
  readonly types: readonly SqlType[];
  count: number;
}

/** COPY TO's text or CSV: the header line if asked for, then the rows; a failure fails the transaction. */
async function* copyTextChunks(out: CopyOutRows, columns: QueryBound['columns'], settings: TextIoSettings, options: CopyOptions): AsyncIterable<Uint8Array> {
  try {
    if (options.header) yield Buffer.from(formatCopyRow(columns.map((col) => col.name), options));
    for await (const b of out.batches) {
      const rb = toRowBatch(b, out.types);
      const text = copyRowsText(rb, out.types, settings, options);
      out.count += rb.numRows;
      if (text !== '') yield Buffer.from(text);
    }
  } catch (e) {
    out.ctx.fail();
    throw e;
  }
}

async function* noChunks(): AsyncIterable<Uint8Array> { /* the wire encodes rowBatches */ }

/** COPY TO's binary rows, which the wire encodes; a failure fails the transaction. */
async function* copyRowBatches(out: CopyOutRows): AsyncIterable<RowBatch> {
  try {
    for await (const b of out.batches) {
      const rb = toRowBatch(b, out.types);
      out.count += rb.numRows;
      yield rb;
    }
  } catch (e) {
    out.ctx.fail();
    throw e;
  }
}
