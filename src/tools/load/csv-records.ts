import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface CsvRecord {
  /** 1-based line number of the record's first line. */
  readonly line: number;
  /** The record's text; lines inside quoted fields are joined with "\n". */
  readonly text: string;
}

/**
 * Streams a CSV file as whole records: a record continues onto the next line while
 * it has an odd number of quote characters (a newline inside a quoted field). This
 * holds for quote = escape (CSV's doubled quotes), the only escaping the loader offers.
 */
export async function* csvRecords(path: string, quote: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let pending: string | undefined;
  let pendingLine = 0;
  let quotes = 0;
  try {
    for await (let line of lines) {
      lineNo++;
      // Spreadsheet exports often start with a byte-order mark; it is not part of the first name.
      if (lineNo === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
      onBytes?.(stream.bytesRead);
      let q = 0;
      for (let i = line.indexOf(quote); i !== -1; i = line.indexOf(quote, i + 1)) q++;
      if (pending === undefined) {
        pending = line;
        pendingLine = lineNo;
        quotes = q;
      } else {
        pending += `\n${line}`;
        quotes += q;
      }
      if (quotes % 2 === 0) {
        yield { line: pendingLine, text: pending };
        pending = undefined;
      }
    }
    // An unterminated quoted field: the parser reports it with this record's line.
    if (pending !== undefined) yield { line: pendingLine, text: pending };
  } finally {
    lines.close();
    stream.destroy();
  }
}
