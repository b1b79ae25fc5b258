import { targetMet } from './commit-figure.js';
import type { CommitFigure } from './commit-figure.js';
import type { CommitBenchReport } from './commitbench-benchmark.js';

function fmt(x: number | undefined): string {
  if (x === undefined || Number.isNaN(x)) return '—';
  if (Number.isInteger(x)) return x.toLocaleString('en-US');
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  if (Math.abs(x) >= 1) return x.toFixed(2);
  return x.toPrecision(2);
}

/** Floe's speed relative to the first peer present (PostgreSQL, else DuckDB): above 1× Floe is faster. */
function ratio(f: CommitFigure): string {
  const peer = f.postgres ?? f.duckdb;
  if (f.floe === undefined || peer === undefined || f.floe === 0 || peer === 0) return '—';
  return `${fmt(f.lowerIsBetter ? peer / f.floe : f.floe / peer)}×`;
}

function target(f: CommitFigure): string {
  if (f.target === undefined) return '';
  const met = targetMet(f);
  return `${f.target.op === '<=' ? '≤' : '≥'} ${fmt(f.target.value)}${met === undefined ? '' : met ? ' ✓' : ' ✗'}`;
}

/** The report as a Markdown table (the form bench/README.md records), then notes and any disagreement. */
export function formatCommitReport(report: CommitBenchReport): string {
  const head = ['measure', 'unit', 'Floe', 'PostgreSQL', 'DuckDB', 'Floe vs peer (speed)', 'target'];
  const rows = report.figures.map((f) => [f.what, f.unit, fmt(f.floe), fmt(f.postgres), fmt(f.duckdb), ratio(f), target(f)]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const numeric = (c: number) => c >= 2 && c <= 5;
  const line = (r: string[]) => `| ${r.map((x, c) => (numeric(c) ? x.padStart(widths[c]!) : x.padEnd(widths[c]!))).join(' | ')} |`;
  const out = [
    `Floe commit benchmark (issue 24) — ${report.machine} — ${report.date} — ${report.seconds.toFixed(0)} s`,
    '',
    line(head),
    `|${widths.map((w, c) => (numeric(c) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...rows.map(line),
    '',
    ...report.notes.map((n) => `- ${n}`),
  ];
  out.push('', report.mismatches.length === 0 ? 'Answers: every engine read what was written.' : `ANSWERS DIFFER:\n${report.mismatches.map((m) => `- ${m}`).join('\n')}`);
  return out.join('\n');
}

export function commitReportJson(report: CommitBenchReport): string {
  return JSON.stringify(report, null, 1);
}
