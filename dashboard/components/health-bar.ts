import { html } from 'htm/preact';

/** A 0–100 health score as a coloured bar with its number; '–' when the service has no score. */
export function HealthBar({ score }: { score: number | null }) {
  if (score === null) return html`<span class="muted">–</span>`;
  const level = score >= 80 ? 'good' : score >= 50 ? 'fair' : 'poor';
  return html`<span class="health ${level}" title="health score ${score} of 100">
    <span class="bar"><span style=${{ width: `${Math.max(2, Math.min(100, score))}%` }}></span></span>${Math.round(score)}
  </span>`;
}
