import { html } from 'htm/preact';
import { ActionButton } from '../components/action-button.js';
import { ErrorNote } from '../components/error-note.js';
import { HealthBar } from '../components/health-bar.js';
import { count, percent, seconds, since, time } from '../format.js';
import { usePoll } from '../use-poll.js';
import type { OptimizingOverview } from './api-types.js';
import { HistoryTable } from './history-table.js';

/** Groups and their resources, each table's optimizing state with the admin actions, optimizers and history. */
export function OptimizingPage() {
  const { data, error, reload } = usePoll<OptimizingOverview>('/api/v1/optimizing', 3000);
  if (data === undefined) return html`<div class="page"><h2>Optimizing</h2><${ErrorNote} error=${error} /></div>`;
  return html`<div class="page optimizing">
    <h2>Optimizing</h2>
    <${ErrorNote} error=${error} />
    <section>
      <h3>Optimizer groups</h3>
      <table class="groups"><thead><tr><th>group</th><th>threads</th><th>policy</th><th>tables</th><th>running</th><th>queued</th><th>occupation (last hour)</th></tr></thead>
        <tbody>${data.groups.map((g) => html`<tr><td>${g.name}</td><td class="num">${g.threads}</td><td>${g.schedulingPolicy}</td><td class="num">${g.tables}</td>
          <td class="num">${g.tasksRunning}</td><td class="num">${g.tasksQueued}</td><td class="num">${percent(g.occupation)}</td></tr>`)}</tbody></table>
    </section>
    <section>
      <h3>Processes now</h3>
      ${data.processes.length === 0 ? html`<p class="muted">No process is pending or running.</p>` : html`<ul class="running">${data.processes.map((p) =>
        html`<li><a href="#/tables/${p.schema}/${p.table}">${p.schema}.${p.table}</a> <span class="status ${p.status}">${p.status}</span> in ${p.group}</li>`)}</ul>`}
    </section>
    <section>
      <h3>Tables</h3>
      <table class="opt-tables"><thead><tr><th>table</th><th>group</th><th>status</th><th>quota</th><th>occupation</th><th>health</th><th>lag</th><th>read amp. (actual / target)</th><th>actions</th></tr></thead>
        <tbody>${data.tables.map((t) => {
          const path = `/api/v1/tables/${encodeURIComponent(t.schema)}/${encodeURIComponent(t.table)}`;
          return html`<tr data-table="${t.schema}.${t.table}"><td><a href="#/tables/${t.schema}/${t.table}">${t.schema}.${t.table}</a></td><td>${t.group}</td>
            <td><span class="status ${t.enabled ? t.status : 'paused'}">${t.enabled ? t.status : 'paused'}</span></td>
            <td class="num">${percent(t.quota)}</td><td class="num">${percent(t.occupation)}</td><td><${HealthBar} score=${t.healthScore} /></td>
            <td class="num">${seconds(t.freshnessLagSeconds)}</td><td class="num">${t.readAmplification.actual.toFixed(1)} / ${t.readAmplification.target}</td>
            <td>${t.enabled ? html`<${ActionButton} label="Pause" path="${path}/pause" onDone=${reload} />` : html`<${ActionButton} label="Resume" path="${path}/resume" onDone=${reload} />`}
              <${ActionButton} label="Optimize now" path="${path}/optimize" onDone=${reload} /></td></tr>`;
        })}</tbody></table>
    </section>
    <section>
      <h3>Optimizers</h3>
      ${data.optimizers.length === 0 ? html`<p class="muted">No optimizer process has registered.</p>` : html`<table class="optimizers">
        <thead><tr><th>optimizer</th><th>host</th><th>pid</th><th>groups</th><th>threads</th><th>started</th><th>last heartbeat</th><th>state</th></tr></thead>
        <tbody>${data.optimizers.map((o) => html`<tr><td>${o.id}</td><td>${o.host}</td><td class="num">${o.pid}</td><td>${o.groups?.join(', ') ?? 'all'}</td>
          <td class="num">${count(o.threads)}</td><td>${time(o.startedAt)}</td><td>${since(o.lastHeartbeat)} ago</td><td><span class="status ${o.state}">${o.state}</span></td></tr>`)}</tbody></table>`}
    </section>
    <section><h3>History</h3><${HistoryTable} runs=${data.history.slice(0, 50)} withTable=${true} /></section>
  </div>`;
}
