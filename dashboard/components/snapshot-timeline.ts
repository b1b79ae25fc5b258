import { html } from 'htm/preact';
import { time } from '../format.js';

export interface SnapshotInfo {
  readonly id: string;
  readonly parentId: string | null;
  readonly branch: string;
  readonly committedAt: string | null;
  readonly operation: string;
}

export interface RefInfo {
  readonly name: string;
  readonly kind: 'branch' | 'tag';
  readonly snapshotId: string | null;
}

/** Snapshots drawn: the newest ones, so the timeline stays readable. */
const SHOWN = 40;
const STEP = 26;
const LANE = 34;
const LEFT = 110;

/**
 * The snapshot lineage as lanes, one per branch, oldest on the left: a dot per snapshot
 * (coloured by operation), a line to its parent, and tags named above their snapshot.
 */
export function SnapshotTimeline({ snapshots, refs, total }: { snapshots: readonly SnapshotInfo[]; refs: readonly RefInfo[]; total: number }) {
  if (snapshots.length === 0) return html`<p class="muted">No snapshots yet.</p>`;
  const shown = snapshots.slice(0, SHOWN).reverse();
  const branches = [...new Set(['main', ...shown.map((s) => s.branch), ...refs.filter((r) => r.kind === 'branch').map((r) => r.name)])]
    .filter((b) => b === 'main' || shown.some((s) => s.branch === b) || refs.some((r) => r.name === b));
  const at = new Map(shown.map((s, i) => [s.id, { x: LEFT + i * STEP, y: 24 + branches.indexOf(s.branch) * LANE }]));
  const tags = refs.filter((r) => r.kind === 'tag' && r.snapshotId !== null && at.has(r.snapshotId));
  const width = LEFT + shown.length * STEP + 60;
  const height = 24 + branches.length * LANE;
  return html`<div class="timeline-box">
    <svg class="snapshot-timeline" width=${width} height=${height} role="img" aria-label="snapshot timeline">
      ${branches.map((b, i) => html`<g class="lane"><text x="4" y=${28 + i * LANE} class="lane-name">${refs.some((r) => r.kind === 'branch' && r.name === b) ? '⎇ ' : ''}${b}</text>
        <line x1=${LEFT - 10} x2=${width - 20} y1=${24 + i * LANE} y2=${24 + i * LANE} /></g>`)}
      ${shown.map((s) => {
        const p = s.parentId === null ? undefined : at.get(s.parentId);
        const me = at.get(s.id)!;
        return p === undefined ? null : html`<path class="lineage" d="M${p.x},${p.y} C${p.x + STEP / 2},${p.y} ${me.x - STEP / 2},${me.y} ${me.x},${me.y}" />`;
      })}
      ${shown.map((s) => {
        const me = at.get(s.id)!;
        return html`<circle class="snapshot op-${s.operation}" cx=${me.x} cy=${me.y} r="7" data-snapshot=${s.id}><title>snapshot ${s.id} on ${s.branch}: ${s.operation}, ${time(s.committedAt)}</title></circle>`;
      })}
      ${tags.map((t) => {
        const me = at.get(t.snapshotId!)!;
        return html`<text class="tag" x=${me.x} y=${me.y - 11}>🏷 ${t.name}</text>`;
      })}
    </svg>
    <p class="refs">${refs.map((r) => html`<span class="ref ${r.kind}">${r.kind === 'tag' ? '🏷' : '⎇'} ${r.name} → ${r.snapshotId ?? '–'}</span>`)}</p>
    <p class="muted legend">
      <span class="swatch op-append"></span>append <span class="swatch op-overwrite"></span>overwrite/delete
      <span class="swatch op-optimize"></span>optimize · newest ${shown.length} of ${total} snapshots
    </p>
  </div>`;
}
