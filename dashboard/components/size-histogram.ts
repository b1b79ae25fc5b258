import { html } from 'htm/preact';
import { bytes, count } from '../format.js';

/** One size class of one store, as the table API sends it. */
export interface SizeClass {
  readonly store: 'change' | 'base';
  readonly upToBytes: number | null;
  readonly files: number;
  readonly bytes: number;
}

/** Files by size class, change and base side by side: many small files are the optimizer's work. */
export function SizeHistogram({ classes }: { classes: readonly SizeClass[] }) {
  const bounds = [...new Set(classes.map((c) => c.upToBytes))];
  const max = Math.max(1, ...classes.map((c) => c.files));
  const H = 120;
  const W = 64;
  return html`<svg class="size-histogram" width=${bounds.length * W + 10} height=${H + 40} role="img" aria-label="files by size">
    ${bounds.map((b, i) => {
      const label = b === null ? 'larger' : `≤ ${bytes(b)}`;
      return html`<g>
        ${(['change', 'base'] as const).map((store, j) => {
          const c = classes.find((x) => x.upToBytes === b && x.store === store)!;
          const h = (c.files / max) * H;
          return html`<rect class="bar ${store}" x=${10 + i * W + j * 24} y=${H - h + 4} width="22" height=${Math.max(h, c.files > 0 ? 2 : 0)}>
            <title>${store} store, ${label}: ${count(c.files)} files, ${bytes(c.bytes)}</title></rect>
            ${c.files > 0 ? html`<text class="count" x=${21 + i * W + j * 24} y=${H - h}>${c.files}</text>` : null}`;
        })}
        <text class="axis" x=${33 + i * W} y=${H + 22}>${label}</text>
      </g>`;
    })}
  </svg>
  <p class="muted legend"><span class="swatch change"></span>change store <span class="swatch base"></span>base store</p>`;
}
