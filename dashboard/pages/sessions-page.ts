import { html } from 'htm/preact';
import { ActionButton } from '../components/action-button.js';
import { ErrorNote } from '../components/error-note.js';
import { count, millis, since, time } from '../format.js';
import { usePoll } from '../use-poll.js';
import type { ConnectedSession, StatementTotals } from './api-types.js';

/** Statements listed as the slowest now. */
const LONGEST = 10;

/**
 * Who is connected and what runs (pg_stat_activity), with a cancel button; the
 * longest-running statements now; and the slowest statements that ended, by mean time
 * (floe_stat_statements: constants folded, so one row per statement shape).
 */
export function SessionsPage() {
  const { data, error, reload } = usePoll<{ sessions: readonly ConnectedSession[] }>('/api/v1/sessions', 2000);
  const slowest = usePoll<{ statements: readonly StatementTotals[] }>('/api/v1/statements', 5000);
  const sessions = data?.sessions ?? [];
  const running = sessions.filter((s) => s.state === 'active' && s.queryStart !== null)
    .sort((a, b) => Date.parse(a.queryStart!) - Date.parse(b.queryStart!)).slice(0, LONGEST);
  return html`<div class="page sessions">
    <h2>Sessions and queries</h2>
    <${ErrorNote} error=${error} />
    <section>
      <h3>Longest-running statements now</h3>
      <p class="muted small">Statements still running, longest first.</p>
      ${running.length === 0 ? html`<p class="muted">No statement is running.</p>` : html`<table class="longest">
        <thead><tr><th>running for</th><th>pid</th><th>user</th><th>statement</th></tr></thead>
        <tbody>${running.map((s) => html`<tr><td class="num">${since(s.queryStart)}</td><td class="num">${s.pid}</td><td>${s.user}</td><td><code>${s.query}</code></td></tr>`)}</tbody></table>`}
    </section>
    <section>
      <h3>Slowest statements</h3>
      <p class="muted small">Ended statements by mean time since the last floe_stat_statements_reset(), constants folded to $n.</p>
      <${ErrorNote} error=${slowest.error} />
      ${(slowest.data?.statements.length ?? 0) === 0 ? html`<p class="muted">No statement has ended yet.</p>` : html`<table class="slowest">
        <thead><tr><th>mean</th><th>max</th><th>calls</th><th>total</th><th>rows</th><th>user</th><th>statement</th></tr></thead>
        <tbody>${slowest.data!.statements.map((s) => html`<tr><td class="num">${millis(s.meanMs)}</td><td class="num">${millis(s.maxMs)}</td>
          <td class="num">${count(s.calls)}</td><td class="num">${millis(s.totalMs)}</td><td class="num">${count(s.rows)}</td><td>${s.user}</td><td><code>${s.query}</code></td></tr>`)}</tbody></table>`}
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
