import { html } from 'htm/preact';
import { ActionButton } from '../components/action-button.js';
import { ErrorNote } from '../components/error-note.js';
import { since, time } from '../format.js';
import { usePoll } from '../use-poll.js';
import type { ConnectedSession } from './api-types.js';

/** Statements listed as the slowest now. */
const LONGEST = 10;

/**
 * Who is connected and what runs (pg_stat_activity), with a cancel button; and the
 * longest-running statements now. The server keeps no statement statistics yet
 * (floe_stat_statements), so there is no list of slow statements that have ended.
 */
export function SessionsPage() {
  const { data, error, reload } = usePoll<{ sessions: readonly ConnectedSession[] }>('/api/v1/sessions', 2000);
  const sessions = data?.sessions ?? [];
  const running = sessions.filter((s) => s.state === 'active' && s.queryStart !== null)
    .sort((a, b) => Date.parse(a.queryStart!) - Date.parse(b.queryStart!)).slice(0, LONGEST);
  return html`<div class="page sessions">
    <h2>Sessions and queries</h2>
    <${ErrorNote} error=${error} />
    <section>
      <h3>Longest-running statements now</h3>
      <p class="muted small">Statements still running, longest first. Statistics of ended statements (floe_stat_statements) are not collected by this server yet.</p>
      ${running.length === 0 ? html`<p class="muted">No statement is running.</p>` : html`<table class="longest">
        <thead><tr><th>running for</th><th>pid</th><th>user</th><th>statement</th></tr></thead>
        <tbody>${running.map((s) => html`<tr><td class="num">${since(s.queryStart)}</td><td class="num">${s.pid}</td><td>${s.user}</td><td><code>${s.query}</code></td></tr>`)}</tbody></table>`}
    </section>
    <section>
      <h3>Connected (${sessions.length})</h3>
      ${data === undefined ? html`<p class="muted">Loading…</p>` : sessions.length === 0 ? html`<p class="muted">No client is connected.</p>` : html`<table class="sessions-list">
        <thead><tr><th>pid</th><th>user</th><th>application</th><th>client</th><th>connected</th><th>state</th><th>for</th><th>statement</th><th></th></tr></thead>
        <tbody>${sessions.map((s) => html`<tr data-pid=${s.pid}><td class="num">${s.pid}</td><td>${s.user}</td><td>${s.applicationName}</td><td>${s.clientAddress ?? 'local'}</td>
          <td>${time(s.backendStart)}</td><td><span class="status ${s.state === 'active' ? 'executing' : 'idle'}">${s.state}</span></td>
          <td class="num">${s.state === 'active' ? since(s.queryStart) : ''}</td><td><code>${s.query}</code></td>
          <td>${s.state === 'active' ? html`<${ActionButton} label="Cancel" path="/api/v1/sessions/${s.pid}/cancel" onDone=${reload} />` : null}</td></tr>`)}</tbody></table>`}
    </section>
  </div>`;
}
