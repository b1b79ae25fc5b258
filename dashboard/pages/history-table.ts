import { html } from 'htm/preact';
import { bytes, count, seconds, time } from '../format.js';
import type { OptimizingRun } from './api-types.js';

/** Optimizing processes that ended: kind, duration, what went in and what came out. */
export function HistoryTable({ runs, withTable = false }: { runs: readonly OptimizingRun[]; withTable?: boolean }) {
  if (runs.length === 0) return html`<p class="muted">No optimizing process has run yet.</p>`;
  return html`<table class="history">
    <thead><tr>${withTable ? html`<th>table</th>` : null}<th>started</th><th>kind</th><th>trigger</th><th>status</th><th>duration</th>
      <th>files in → out</th><th>bytes in → out</th><th>rows in → out</th></tr></thead>
    <tbody>${runs.map((r) => html`<tr class="run ${r.status}" data-run=${r.id}>
      ${withTable ? html`<td>${r.table === null || r.table === undefined ? '–' : html`<a href="#/tables/${r.schema}/${r.table}">${r.schema}.${r.table}</a>`}</td>` : null}
      <td>${time(r.started)}</td><td>${r.kind}</td><td>${r.trigger}</td>
      <td title=${r.error ?? ''}><span class="status ${r.status}">${r.status}</span></td><td class="num">${seconds(r.durationMs / 1000)}</td>
      <td class="num">${count(r.filesIn)} → ${count(r.filesOut)}</td><td class="num">${bytes(r.bytesIn)} → ${bytes(r.bytesOut)}</td>
      <td class="num">${count(r.rowsIn)} → ${count(r.rowsOut)}</td>
    </tr>`)}</tbody>
  </table>`;
}
