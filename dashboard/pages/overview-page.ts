import { html } from 'htm/preact';
import { ErrorNote } from '../components/error-note.js';
import { HealthBar } from '../components/health-bar.js';
import { RateChart } from '../components/rate-chart.js';
import { bytes, count, seconds } from '../format.js';
import { usePoll } from '../use-poll.js';
import type { OptimizingOverview, RatePoint, TableSummary } from './api-types.js';

const tableLink = (t: { schema: string; table: string }) => html`<a href="#/tables/${t.schema}/${t.table}">${t.schema}.${t.table}</a>`;

function RateCharts() {
  const { data, error } = usePoll<{ points: readonly RatePoint[] }>('/api/v1/rates', 5000);
  const points = data?.points ?? [];
  const times = points.map((p) => p.at / 1000);
  return html`<section class="charts">
    <${ErrorNote} error=${error} />
    <${RateChart} title="Ingest, last hour (per second)" times=${times} series=${[
      { label: 'rows written', color: '#2a7ab0', values: points.map((p) => p.ingestRowsPerSecond) },
      { label: 'commits', color: '#e08a1e', values: points.map((p) => p.commitsPerSecond) },
    ]} />
    <${RateChart} title="Queries, last hour (per second)" times=${times} series=${[
      { label: 'statements', color: '#3a9a5b', values: points.map((p) => p.queriesPerSecond) },
      { label: 'errors', color: '#c0392b', values: points.map((p) => p.errorsPerSecond) },
    ]} />
  </section>`;
}

/** The warehouse at a glance: every table, the least healthy, what optimizes now, and the last hour's rates. */
export function OverviewPage() {
  const tables = usePoll<{ tables: readonly TableSummary[] }>('/api/v1/tables');
  const optimizing = usePoll<OptimizingOverview>('/api/v1/optimizing');
  const list = tables.data?.tables ?? [];
  const leastHealthy = list.filter((t) => t.healthScore !== null).sort((a, b) => a.healthScore! - b.healthScore!).slice(0, 10);
  const running = optimizing.data?.processes ?? [];
  return html`<div class="page overview">
    <h2>Overview</h2>
    <div class="cards">
      <div class="card"><span class="big">${count(list.length)}</span> tables</div>
      <div class="card"><span class="big">${count(list.reduce((n, t) => n + t.rows, 0))}</span> rows</div>
      <div class="card"><span class="big">${bytes(list.reduce((n, t) => n + t.bytes, 0))}</span> stored</div>
      <div class="card"><span class="big">${count(running.length)}</span> optimizing now</div>
    </div>
    <${RateCharts} />
    <section>
      <h3>Tables</h3>
      <${ErrorNote} error=${tables.error} />
      ${tables.data === undefined ? html`<p class="muted">Loading…</p>` : list.length === 0 ? html`<p class="muted">No tables yet: CREATE TABLE through the PostgreSQL port.</p>` : html`
      <table class="tables">
        <thead><tr><th>table</th><th>rows</th><th>bytes</th><th>files (change + base)</th><th>freshness lag</th><th>health</th><th>optimizing</th></tr></thead>
        <tbody>${list.map((t) => html`<tr data-table="${t.schema}.${t.table}">
          <td>${tableLink(t)}${t.keyed ? html` <span class="pill">keyed</span>` : null}</td>
          <td class="num">${count(t.rows)}</td><td class="num">${bytes(t.bytes)}</td>
          <td class="num">${count(t.stores.change.files)} + ${count(t.stores.base.files)}</td>
          <td class="num">${seconds(t.freshnessLagSeconds)}</td><td><${HealthBar} score=${t.healthScore} /></td>
          <td>${t.optimizingStatus === null ? '–' : html`<span class="status ${t.optimizingStatus}">${t.optimizingEnabled === false ? 'paused' : t.optimizingStatus}</span>`}</td>
        </tr>`)}</tbody>
      </table>`}
    </section>
    <div class="columns">
      <section>
        <h3>Ten least healthy</h3>
        ${leastHealthy.length === 0 ? html`<p class="muted">No health scores yet.</p>` : html`<ol class="least-healthy">${leastHealthy.map((t) => html`<li>${tableLink(t)} <${HealthBar} score=${t.healthScore} /></li>`)}</ol>`}
      </section>
      <section>
        <h3>Optimizing now</h3>
        <${ErrorNote} error=${optimizing.error} />
        ${running.length === 0 ? html`<p class="muted">Nothing is optimizing.</p>` : html`<ul class="running">${running.map((p) => html`<li>${tableLink(p)} <span class="status ${p.status}">${p.status}</span> in group ${p.group}</li>`)}</ul>`}
      </section>
    </div>
  </div>`;
}
