import type { ExplainChild, ExplainNode } from './explain-plan.js';

type JsonPlan = Record<string, unknown>;

/** Top-level figures EXPLAIN ANALYZE adds beside the plan (SUMMARY ON). */
export interface ExplainJsonSummary {
  readonly executionTimeMs: number;
}

/**
 * EXPLAIN (FORMAT JSON) in PostgreSQL's shape: `[{"Plan": {"Node Type": …, "Plans": […]}}]`,
 * pretty-printed with two-space indents as PostgreSQL prints it. Node titles are split into
 * PostgreSQL's keys ("Relation Name", "Schema", "Alias", "Join Type", "Operation"); each
 * `Key: value` detail line becomes a key of its node (integers and decimals as numbers).
 */
export function explainJson(root: ExplainNode, summary?: ExplainJsonSummary): string {
  const top: JsonPlan = { Plan: nodeJson(root, undefined, 0) };
  if (summary) {
    top['Triggers'] = [];
    top['Execution Time'] = Number(summary.executionTimeMs.toFixed(3));
  }
  return JSON.stringify([top], null, 2);
}

function nodeJson(n: ExplainNode, child: ExplainChild | undefined, inputIndex: number): JsonPlan {
  const out: JsonPlan = { ...titleKeys(n.title) };
  if (child !== undefined) {
    if (child.role === 'input') out['Parent Relationship'] = inputIndex === 0 ? 'Outer' : 'Inner';
    else {
      out['Parent Relationship'] = child.role === 'subplan' ? 'SubPlan' : 'InitPlan';
      out['Subplan Name'] = child.label;
    }
  }
  if (n.analyzed) {
    const m = n.analyzed.metrics;
    if (m === undefined) out['Actual Loops'] = 0;
    else {
      if (n.analyzed.timing) {
        const first = m.extra.firstBatchNs;
        out['Actual Startup Time'] = Number((Number(typeof first === 'number' ? first : m.elapsedNs) / 1e6).toFixed(3));
        out['Actual Total Time'] = Number((Number(m.elapsedNs) / 1e6).toFixed(3));
      }
      out['Actual Rows'] = m.rowsOut;
      out['Actual Loops'] = typeof m.extra.loops === 'number' ? m.extra.loops : 1;
    }
  }
  const notes: string[] = [];
  for (const d of n.details) {
    const at = d.indexOf(': ');
    if (at < 0) notes.push(d);
    else out[d.slice(0, at)] = scalar(d.slice(at + 2));
  }
  if (notes.length > 0) out['Notes'] = notes;
  const ordered = [...n.children.filter((c) => c.role !== 'subplan'), ...n.children.filter((c) => c.role === 'subplan')];
  if (ordered.length > 0) {
    let inputs = 0;
    out['Plans'] = ordered.map((c) => nodeJson(c.node, c, c.role === 'input' ? inputs++ : 0));
  }
  return out;
}

function scalar(v: string): string | number {
  return /^-?\d+(\.\d+)?$/.test(v) && v.length < 16 ? Number(v) : v;
}

const MODIFY_OPERATIONS = new Set(['Insert', 'Update', 'Delete', 'Merge']);

/** "Lake Scan on public.t", "Hash Join (inner)", "Insert on public.t (branch b)" → PostgreSQL's keys. */
function titleKeys(title: string): JsonPlan {
  const on = /^(.+?) on ([^ ]+)(.*)$/.exec(title);
  if (on !== null) {
    const [, kind, target, rest] = on as unknown as [string, string, string, string];
    const dot = target.indexOf('.');
    const relation = dot < 0 ? { 'CTE Name': target } : { 'Relation Name': target.slice(dot + 1), Schema: target.slice(0, dot), Alias: target.slice(dot + 1) };
    const extra = rest.trim() === '' ? {} : { 'Scan Point': rest.trim().replace(/^\((.*)\)$/, '$1') };
    if (MODIFY_OPERATIONS.has(kind)) return { 'Node Type': 'ModifyTable', Operation: kind, ...relation, ...extra };
    return { 'Node Type': kind, ...relation, ...extra };
  }
  const join = /^(.+ Join) \((\w+)\)$/.exec(title);
  if (join !== null) return { 'Node Type': join[1], 'Join Type': join[2]![0]!.toUpperCase() + join[2]!.slice(1) };
  return { 'Node Type': title };
}
