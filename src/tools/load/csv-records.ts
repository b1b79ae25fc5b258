import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { FloeError } from '../../common/floe-error.js';
import { findInvalidUtf8, invalidUtf8Error, wholeSequencesLength } from '../../common/utf8.js';

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
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  const lines = createInterface({ input: stream.pipe(verifiedUtf8(path)), crlfDelay: Infinity });
  stream.on('error', (e) => lines.emit('error', e));
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

/**
 * Passes a file's bytes through unchanged once they are known to be UTF-8, as COPY
 * requires of its input; the first bad sequence is 22021 with the line it is on.
 */
function verifiedUtf8(path: string): Transform {
  let carry: Buffer = Buffer.alloc(0);
  let lines = 1;
  const check = (bytes: Buffer): void => {
    const bad = findInvalidUtf8(bytes);
    if (bad !== undefined) {
      let line = lines;
      for (let i = bytes.indexOf(10); i !== -1 && i < bad.offset; i = bytes.indexOf(10, i + 1)) line++;
      const e = invalidUtf8Error(bad.sequence);
      throw new FloeError(e.sqlstate, e.message, { detail: `line ${line} of ${path}` });
    }
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      const whole = wholeSequencesLength(bytes);
      try {
        check(bytes.subarray(0, whole));
      } catch (e) {
        done(e as Error);
        return;
      }
      carry = Buffer.from(bytes.subarray(whole));
      done(null, bytes.subarray(0, whole));
    },
    flush(done) {
      try {
        // A sequence cut off by the end of the file.
        if (carry.length > 0) check(carry);
      } catch (e) {
        done(e as Error);
        return;
      }
      done();
    },
  });
}
