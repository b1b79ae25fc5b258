import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ActionButton } from '../components/action-button.js';
import { BucketTree, type BucketNode } from '../components/bucket-tree.js';
import { ErrorNote } from '../components/error-note.js';
import { HealthBar } from '../components/health-bar.js';
import { SizeHistogram, type SizeClass } from '../components/size-histogram.js';
import { SnapshotTimeline, type RefInfo, type SnapshotInfo } from '../components/snapshot-timeline.js';
import { bytes, count, seconds, time } from '../format.js';
import { usePoll } from '../use-poll.js';
import type { OptimizingRun, StoreTotals } from './api-types.js';
import { HistoryTable } from './history-table.js';

interface TableDetail {
  readonly schema: string;
  readonly table: string;
  readonly keyed: boolean;
  readonly primaryKey: readonly string[];
  readonly columns: readonly { name: string; type: string; nullable: boolean; default: string | null }[];
  readonly partitionBy: readonly { name: string; column: string; transform: string }[];
  readonly properties: Readonly<Record<string, string>>;
  readonly headSnapshotId: string | null;
  readonly snapshotsTotal: number;
  readonly snapshots: readonly SnapshotInfo[];
  readonly refs: readonly RefInfo[];
  readonly files: { readonly stores: { readonly change: StoreTotals; readonly base: StoreTotals }; readonly sizes: readonly SizeClass[] };
  readonly buckets: readonly BucketNode[];
  readonly optimizing: null | {
    enabled: boolean; group: string; status: string; healthScore: number; freshnessLagSeconds: number;
    pendingChangeFiles: number; pendingChangeRows: number; smallFiles: number; lastMinor: string | null; lastMajor: string | null; lastFull: string | null;
  };
  readonly readAmplification: null | { target: number; actual: number };
  readonly history: readonly OptimizingRun[];
  readonly recentChanges: readonly { changeType: string; seq: string; snapshotId: string; values: Readonly<Record<string, unknown>> }[];
}

/** Files a scan task reads per key range: the target (optimize.read-amplification) against what the table has now. */
function ReadAmplification({ ra }: { ra: TableDetail['readAmplification'] }) {
  if (ra === null) return html`<p class="muted">Not known: the optimizing service has no row for this table.</p>`;
  const scale = Math.max(ra.target, ra.actual, 1) * 1.15;
  return html`<div class="ra ${ra.actual > ra.target ? 'over' : 'under'}">
    <div class="ra-bar"><span class="actual" style=${{ width: `${(ra.actual / scale) * 100}%` }}></span>
      <span class="target" style=${{ left: `${(ra.target / scale) * 100}%` }} title="target"></span></div>
    <p>actual <b>${ra.actual.toFixed(1)}</b> files per read against a target of <b>${ra.target}</b>
      ${ra.actual > ra.target ? ' — over target: optimizing is due' : ' — within target'}</p>
  </div>`;
}

function Actions({ path, enabled, reload }: { path: string; enabled: boolean | undefined; reload: () => void }) {
  const [kind, setKind] = useState('major');
  return html`<div class="actions">
    ${enabled === false
      ? html`<${ActionButton} label="Resume optimizing" path="${path}/resume" onDone=${reload} />`
      : html`<${ActionButton} label="Pause optimizing" path="${path}/pause" onDone=${reload} />`}
    <select value=${kind} onChange=${(e: Event) => setKind((e.target as HTMLSelectElement).value)} aria-label="optimize kind">
      <option value="minor">minor</option><option value="major">major</option><option value="full">full</option>
    </select>
    <${ActionButton} label="Optimize now" path="${path}/optimize" body=${{ kind }} onDone=${reload} />
  </div>`;
}

/** One table: schema and properties, snapshots, files, the bucket tree, optimizing and recent changes. */
export function TablePage({ schema, table }: { schema: string; table: string }) {
  const path = `/api/v1/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`;
  const { data: t, error, reload } = usePoll<TableDetail>(path);
  if (t === undefined) return html`<div class="page"><h2>${schema}.${table}</h2><${ErrorNote} error=${error} />${error === undefined ? html`<p class="muted">Loading…</p>` : null}</div>`;
  const o = t.optimizing;
  const changeColumns = t.columns.map((c) => c.name);
  return html`<div class="page table-page">
    <h2>${t.schema}.${t.table} ${t.keyed ? html`<span class="pill">keyed</span>` : html`<span class="pill">append</span>`}</h2>
    <${ErrorNote} error=${error} />
    <div class="cards">
      <div class="card"><span class="big">${count(t.files.stores.base.rows + t.files.stores.change.rows)}</span> rows</div>
      <div class="card"><span class="big">${bytes(t.files.stores.base.bytes + t.files.stores.change.bytes)}</span> stored</div>
      <div class="card"><span class="big">${seconds(o?.freshnessLagSeconds ?? null)}</span> freshness lag</div>
      <div class="card">health <${HealthBar} score=${o?.healthScore ?? null} /></div>
    </div>
    <${Actions} path=${path} enabled=${o?.enabled} reload=${reload} />
    <div class="columns">
      <section>
        <h3>Schema</h3>
        <table class="schema"><thead><tr><th>column</th><th>type</th><th>null</th><th>default</th></tr></thead>
          <tbody>${t.columns.map((c) => html`<tr><td>${c.name}${t.primaryKey.includes(c.name) ? html` <span class="pill">key</span>` : null}</td>
            <td>${c.type}</td><td>${c.nullable ? 'yes' : 'no'}</td><td>${c.default ?? ''}</td></tr>`)}</tbody></table>
        ${t.partitionBy.length === 0 ? html`<p class="muted">Not partitioned.</p>` : html`<p>Partitioned by ${t.partitionBy.map((p) => `${p.transform}(${p.column})`).join(', ')}</p>`}
      </section>
      <section>
        <h3>Properties</h3>
        ${Object.keys(t.properties).length === 0 ? html`<p class="muted">Defaults only.</p>` : html`<table class="properties"><tbody>${Object.entries(t.properties).map(([k, v]) => html`<tr><td>${k}</td><td>${v}</td></tr>`)}</tbody></table>`}
      </section>
    </div>
    <section><h3>Snapshots, branches and tags</h3><${SnapshotTimeline} snapshots=${t.snapshots} refs=${t.refs} total=${t.snapshotsTotal} /></section>
    <div class="columns">
      <section>
        <h3>Files by store and size</h3>
        <p>change store: ${count(t.files.stores.change.files)} files, ${bytes(t.files.stores.change.bytes)} · base store: ${count(t.files.stores.base.files)} files, ${bytes(t.files.stores.base.bytes)}</p>
        <${SizeHistogram} classes=${t.files.sizes} />
      </section>
      <section>
        <h3>Read amplification</h3>
        <${ReadAmplification} ra=${t.readAmplification} />
        ${o === null ? null : html`<p>Optimizing ${o.enabled ? o.status : 'paused'} in group ${o.group}; pending ${count(o.pendingChangeFiles)} change files
          (${count(o.pendingChangeRows)} rows), ${count(o.smallFiles)} small files. Last minor ${time(o.lastMinor)}, major ${time(o.lastMajor)}, full ${time(o.lastFull)}.</p>`}
      </section>
    </div>
    <section><h3>Bucket tree</h3><${BucketTree} nodes=${t.buckets} /></section>
    <section><h3>Optimizing history</h3><${HistoryTable} runs=${t.history} /></section>
    <section>
      <h3>Recent changes <span class="muted small">(${t.table}$audit_log, newest first)</span></h3>
      ${t.recentChanges.length === 0 ? html`<p class="muted">No changes recorded.</p>` : html`<table class="changes">
        <thead><tr><th>change</th><th>seq</th><th>snapshot</th>${changeColumns.map((c) => html`<th>${c}</th>`)}</tr></thead>
        <tbody>${t.recentChanges.map((r) => html`<tr><td><span class="change ${r.changeType}">${r.changeType}</span></td><td class="num">${r.seq}</td><td class="num">${r.snapshotId}</td>
          ${changeColumns.map((c) => html`<td>${String(r.values[c] ?? 'NULL')}</td>`)}</tr>`)}</tbody></table>`}
    </section>
  </div>`;
}
