import type { SqlType } from '../../common/sql-type.js';
import type { TpchBatch } from './tpch-generator.js';
import { tpchTable } from './tpch-schema.js';

const DAY_MS = 86_400_000;

/** A canonical value in PostgreSQL's COPY text format (TPC-H values never need escaping, but we escape anyway). */
function copyValue(v: unknown, t: SqlType): string {
  if (v === null || v === undefined) return '\\N';
  if (t.kind === 'date') return new Date((v as number) * DAY_MS).toISOString().slice(0, 10);
  const s = String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/** The batch as COPY … FROM STDIN text: tab-separated, one line per row. */
export function copyText(batch: TpchBatch): string {
  const cols = tpchTable(batch.table).columns;
  const lines: string[] = new Array(batch.rowCount);
  for (let i = 0; i < batch.rowCount; i++) {
    let line = '';
    for (let c = 0; c < cols.length; c++) {
      if (c > 0) line += '\t';
      line += copyValue(batch.columns[c]![i], cols[c]!.type);
    }
    lines[i] = line;
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** ISO text of a canonical date (days since 1970-01-01). */
export function dateText(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}
