/** A Markdown table padded to line up in a terminal: the first `alignLeft` columns left-aligned, the rest right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], alignLeft = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (i < alignLeft ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < alignLeft ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
