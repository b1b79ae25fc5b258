import { FloeError, isFloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseValue } from '../../exec/index.js';
import type { TextIoSettings } from '../../exec/index.js';
import type { TableMetadata } from '../../lake/index.js';
import { parseCopyText } from '../../session/index.js';
import type { CopyOptions } from '../../sql/index.js';
import type { BatchWriter } from './batch-writer.js';
import { csvRecords } from './csv-records.js';

const BAD_COPY_FILE_FORMAT = '22P04';

export interface CsvLoadOptions {
  readonly delimiter: string;
  readonly null: string;
  /** match: the first line names the columns; skip: the first line is ignored; none: columns in table order. */
  readonly header: 'none' | 'match' | 'skip';
  readonly settings: TextIoSettings;
  readonly onBytes?: (bytesRead: number) => void;
}

/** Streams a CSV file into the writer, parsing each field with its column's type. */
export async function loadCsv(path: string, table: TableMetadata, writer: BatchWriter, opts: CsvLoadOptions): Promise<void> {
  const copy: CopyOptions = {
    format: 'csv', delimiter: opts.delimiter, null: opts.null, header: false, quote: '"', escape: '"', forceQuote: [], forceNotNull: [],
  };
  const columns = table.columns;
  // targets[j]: the table column of CSV field j.
  let targets: number[] | undefined = opts.header === 'match' ? undefined : columns.map((_, i) => i);
  let first = true;
  const row = new Array<unknown>(columns.length);
  for await (const rec of csvRecords(path, copy.quote, opts.onBytes)) {
    const where = (column?: string) => `line ${rec.line} of ${path}${column === undefined ? '' : `, column "${column}"`}`;
    let fields: (string | null)[] | undefined;
    try {
      fields = parseCopyText(`${rec.text}\n`, copy)[0];
    } catch (e) {
      throw withDetail(e, where());
    }
    if (fields === undefined) break; // the `\.` end marker
    if (first) {
      first = false;
      if (opts.header === 'skip') continue;
      if (opts.header === 'match') {
        targets = fields.map((name) => {
          const i = columns.findIndex((c) => c.name === name);
          if (i < 0) throw new FloeError(SqlState.undefinedColumn, `column "${name}" of relation "${table.name}" does not exist`, { detail: `header, ${where()}` });
          return i;
        });
        continue;
      }
    }
    const t = targets!;
    if (fields.length > t.length) throw new FloeError(BAD_COPY_FILE_FORMAT, 'extra data after last expected column', { detail: where() });
    if (fields.length < t.length) throw new FloeError(BAD_COPY_FILE_FORMAT, `missing data for column "${columns[t[fields.length]!]!.name}"`, { detail: where() });
    row.fill(null);
    for (let j = 0; j < fields.length; j++) {
      const f = fields[j]!;
      if (f === null) continue;
      const c = columns[t[j]!]!;
      try {
        row[t[j]!] = parseValue(f, c.type, opts.settings);
      } catch (e) {
        throw withDetail(e, where(c.name));
      }
    }
    await writer.push(row, where);
  }
}

function withDetail(e: unknown, detail: string): FloeError {
  if (isFloeError(e)) return new FloeError(e.sqlstate, e.message, { detail: e.detail === undefined ? detail : `${detail}: ${e.detail}`, hint: e.hint, cause: e });
  return new FloeError(SqlState.dataException, e instanceof Error ? e.message : String(e), { detail, cause: e });
}
