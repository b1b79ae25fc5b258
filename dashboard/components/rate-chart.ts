import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface RateSeries {
  readonly label: string;
  readonly color: string;
  /** The y value of each point. */
  readonly values: readonly number[];
}

interface RateChartProps {
  readonly title: string;
  /** Each point's time, seconds since the epoch. */
  readonly times: readonly number[];
  readonly series: readonly RateSeries[];
}

/** A line chart of per-second rates over time (uPlot on a canvas), redrawn in place as points arrive. */
export function RateChart({ title, times, series }: RateChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = [[...times], ...series.map((s) => [...s.values])] as uPlot.AlignedData;
  useEffect(() => {
    const el = box.current!;
    plot.current = new uPlot({
      width: Math.max(300, el.clientWidth),
      height: 180,
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, fill: `${s.color}22`, width: 2, points: { show: true, size: 4 } }))],
      axes: [{}, { size: 60 }],
      scales: { y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, max * 1.1)] } },
      legend: { show: true },
    }, data, el);
    return () => plot.current?.destroy();
    // The chart is built once per mount; new points go through setData below.
  }, []);
  useEffect(() => { plot.current?.setData(data); }, [times, series]);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${box} class="rate-chart" data-points=${times.length}></div>
    ${times.length === 0 ? html`<p class="muted">No samples yet: the server samples every few seconds.</p>` : null}
  </figure>`;
}
