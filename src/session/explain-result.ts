import type { ColumnDescription } from '../common/session-handler.js';
import { typeOid } from '../common/sql-type.js';
import { explainJson, explainText } from '../planner/index.js';
import type { ExplainNode } from '../planner/index.js';
import { textColumn } from './result-columns.js';

/** EXPLAIN's one result column: `QUERY PLAN`, text for FORMAT TEXT, json for FORMAT JSON (as PostgreSQL types it). */
export function explainColumn(format: 'text' | 'json'): ColumnDescription {
  return format === 'json' ? { ...textColumn('QUERY PLAN'), typeOid: typeOid({ kind: 'json' }) } : textColumn('QUERY PLAN');
}

/**
 * EXPLAIN's rows: one per text line, or one JSON document. Under ANALYZE with SUMMARY the
 * text ends with `Actual Rows` and `Execution Time` lines; JSON carries "Execution Time".
 */
export function explainResult<R>(
  tree: ExplainNode, format: 'text' | 'json', summary: { readonly rows: number; readonly elapsedMs: number } | undefined,
  rows: (columns: ColumnDescription[], rows: readonly (readonly unknown[])[]) => R,
): R {
  if (format === 'json') return rows([explainColumn('json')], [[explainJson(tree, summary && { executionTimeMs: summary.elapsedMs })]]);
  const lines = explainText(tree);
  if (summary) lines.push(`Actual Rows: ${summary.rows}`, `Execution Time: ${summary.elapsedMs.toFixed(3)} ms`);
  return rows([explainColumn('text')], lines.map((l) => [l]));
}
