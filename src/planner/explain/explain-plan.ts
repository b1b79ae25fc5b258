import type {
  HashJoinPlan, KeyLookupSpec, LakeScanPlan, MaterializedCte, OperatorMetrics, PhysicalPlan, RuntimeFilterTargetSpec, ScanFilterSpec, ScanSnapshotSelector, SortKey,
} from '../../exec/index.js';
import { KEY_LOOKUP_MAX_KEYS, PROBE_FIRST_ROWS, SMALL_LEFT_ROWS, SMALL_RIGHT_ROWS, planAtPath } from '../../exec/index.js';
import { formatExpr } from './format-expr.js';

/** What the lake's planScan reported for a scan (src/lake ScanPlan), for EXPLAIN's task and pruning lines. */
export interface ScanReport {
  readonly snapshotId?: bigint | number | null;
  readonly tasks: number;
  readonly pushdown?: readonly ('exact' | 'inexact' | 'unsupported' | undefined)[];
  readonly stats?: {
    readonly partitionsTotal: number; readonly partitionsPruned: number;
    readonly filesTotal: number; readonly filesPruned: number;
    readonly nodesScanned: number; readonly nodesPruned: number; readonly nodesSplit?: number;
    readonly merges?: number; readonly mergesKept?: number;
    readonly changeFiles: number; readonly baseFiles: number;
    /** Row groups of the files kept, and those a full-key point read skips by their key-hash ranges. */
    readonly rowGroupsTotal?: number; readonly rowGroupsPruned?: number;
    /** Plain indexes whose value filters the scan used, and the files only they skipped. */
    readonly indexes?: readonly string[]; readonly filesPrunedByIndex?: number;
  };
}

/** What EXPLAIN ANALYZE measured while running the plan (src/exec's ExecContext.metrics). */
export interface ExplainAnalysis {
  readonly metrics: ReadonlyMap<PhysicalPlan, OperatorMetrics>;
  /** Print times (TIMING OFF: rows and loops only). */
  readonly timing: boolean;
}

const ms = (ns: bigint | number): string => (Number(ns) / 1e6).toFixed(3);

/**
 * The ANALYZE suffix of a node line, in PostgreSQL's shape. Floe's operators are
 * pull-based streams timed by `metered()`: the time is inclusive (the operator and
 * everything below it), from the first pull to the last batch, and only `total`
 * is measured, so the line reads `actual time=<total> ms` unless the executor
 * also recorded the first batch (`extra.firstBatchNs`), then `<first>..<total>`.
 */
function actualText(m: OperatorMetrics | undefined, timing: boolean): string {
  if (m === undefined) return ' (never executed)';
  const loops = typeof m.extra.loops === 'number' ? m.extra.loops : 1;
  if (!timing) return ` (actual rows=${m.rowsOut} loops=${loops})`;
  const first = m.extra.firstBatchNs;
  const time = typeof first === 'number' ? `${ms(first)}..${ms(m.elapsedNs)}` : ms(m.elapsedNs);
  return ` (actual time=${time} ms rows=${m.rowsOut} loops=${loops})`;
}

const num = (m: OperatorMetrics | undefined, key: string): number | undefined => {
  const v = m?.extra[key];
  return typeof v === 'number' ? v : undefined;
};

/** ANALYZE detail lines of a lake scan: what the lake read and skipped while it ran. */
function scanAnalysis(p: LakeScanPlan, m: OperatorMetrics | undefined, report: ScanReport | undefined, detail: (t: string) => void): void {
  if (m === undefined) return;
  const scanned = num(m, 'rowsScanned') ?? 0;
  if (p.residual) detail(`Rows Removed by Filter: ${Math.max(0, scanned - m.rowsOut)}`);
  const runtimeFilter = m.extra.runtimeFilter;
  if (typeof runtimeFilter === 'string') detail(`Runtime Filter: ${runtimeFilter}, rows removed ${(num(m, 'runtimeFilterRowsRemoved') ?? 0).toLocaleString('en-US')}`);
  const keyLookup = m.extra.keyLookup;
  if (typeof keyLookup === 'string') detail(`Key Lookup: ${keyLookup}`);
  const filesTotal = num(m, 'filesTotal');
  if (filesTotal !== undefined) {
    const pruned = num(m, 'filesPruned') ?? 0;
    detail(`Files: ${filesTotal - pruned} scanned, ${pruned} skipped (of ${filesTotal}; partitions skipped ${num(m, 'partitionsPruned') ?? 0}, bucket nodes skipped ${num(m, 'nodesPruned') ?? 0})`);
  }
  // Row groups: skipped by key-hash ranges is decided when the scan is planned; by
  // min/max statistics while a task reads its files (reported with the task).
  // The run's own count when it has one: a key lookup's keys are known only once the join has built.
  const byHash = num(m, 'rowGroupsPrunedByKey') ?? report?.stats?.rowGroupsPruned ?? 0;
  const byStats = num(m, 'rowGroupsSkippedByStats');
  const read = num(m, 'rowGroupsRead');
  const total = report?.stats?.rowGroupsTotal;
  if (read !== undefined || byStats !== undefined) {
    const cached = num(m, 'rowGroupCacheHits');
    detail(`Row Groups: ${read ?? '?'} read, ${(byStats ?? 0) + byHash} skipped (min/max ${byStats ?? 0}, key hash ${byHash})${cached === undefined ? '' : `, ${cached} from the row-group cache`}`);
  } else if (total !== undefined) {
    detail(`Row Groups: ${total - byHash} of ${total} planned, ${byHash} skipped by key hash`);
  }
  const merges = num(m, 'merges') ?? 0;
  if (merges > 0) detail(`Merges: ${merges} task${merges === 1 ? '' : 's'} merged change rows, ${num(m, 'mergesKept') ?? 0} of them by kept positions`);
  detail(`Rows Scanned: ${scanned}`);
}

function filterText(f: ScanFilterSpec): string {
  const v = (x: unknown): string => (typeof x === 'string' ? `'${x}'` : typeof x === 'bigint' ? x.toString() : JSON.stringify(x));
  if (f.op === 'isNull') return `${f.column} IS NULL`;
  if (f.op === 'isNotNull') return `${f.column} IS NOT NULL`;
  if (f.op === 'in') return `${f.column} IN (${(f.values ?? []).map(v).join(', ')})`;
  if (f.param !== undefined) return `${f.column} ${f.op} $${f.param.index + 1}`;
  return `${f.column} ${f.op} ${v(f.value)}`;
}

function sortText(keys: readonly SortKey[], input: PhysicalPlan): string {
  return keys.map((k) => `${formatExpr(k.expr, input.columns)}${k.descending ? ' DESC' : ''}${k.nullsFirst !== k.descending ? (k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ');
}

/** Subquery expressions held directly by a node (not by its inputs). */
function subqueriesOf(p: PhysicalPlan): { plan: PhysicalPlan; correlated: boolean }[] {
  const out: { plan: PhysicalPlan; correlated: boolean }[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(visit); return; }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if ((o.kind === 'scalarSubquery' || o.kind === 'exists' || o.kind === 'inSubquery') && o.plan) {
      out.push({ plan: o.plan as PhysicalPlan, correlated: Boolean(o.correlated) });
      if (o.kind === 'inSubquery') visit(o.arg);
      return;
    }
    for (const [k, x] of Object.entries(o)) if (k !== 'input' && k !== 'left' && k !== 'right' && k !== 'columns') visit(x);
  };
  for (const [k, x] of Object.entries(p)) if (k !== 'input' && k !== 'left' && k !== 'right' && k !== 'columns') visit(x);
  return out;
}

/** One operator of an EXPLAIN plan: its title line, detail lines, and what prints under it. */
export interface ExplainNode {
  readonly title: string;
  readonly details: string[];
  /** Under ANALYZE: what the executor measured (undefined: the node never ran). */
  readonly analyzed?: { readonly metrics: OperatorMetrics | undefined; readonly timing: boolean };
  readonly children: ExplainChild[];
}

/** A node under another: an input, a subquery expression ("SubPlan n") or a WITH query printed once ("CTE x"). */
export interface ExplainChild {
  readonly role: 'input' | 'subplan' | 'cte';
  /** "SubPlan 1 (correlated)", "CTE x"; absent for inputs. */
  readonly label?: string;
  readonly node: ExplainNode;
}

/**
 * EXPLAIN text for a physical plan, one operator per line, indented under its
 * parent, with detail lines below. Lake scans show the pushed filters and, when
 * `scans` supplies what planScan reported, the task count and pruning.
 */
export function explainPlan(plan: PhysicalPlan, scans?: ReadonlyMap<LakeScanPlan, ScanReport>, analysis?: ExplainAnalysis): string[] {
  return explainText(explainTree(plan, scans, analysis));
}

/** Renders a plan tree as EXPLAIN's text lines (`->` under the parent, details indented below). */
export function explainText(root: ExplainNode): string[] {
  const lines: string[] = [];
  const render = (n: ExplainNode, depth: number): void => {
    const pad = depth === 0 ? '' : `${'  '.repeat(depth - 1)}->  `;
    const indent = `${'  '.repeat(depth)}${depth === 0 ? '  ' : '    '}`;
    lines.push(`${pad}${n.title}${n.analyzed ? actualText(n.analyzed.metrics, n.analyzed.timing) : ''}`);
    for (const d of n.details) lines.push(`${indent}${d}`);
    // Subquery expressions of a node print under it, before its inputs, as PostgreSQL's "SubPlan n".
    for (const c of n.children) {
      if (c.role !== 'subplan') continue;
      lines.push(`${indent}${c.label}`);
      render(c.node, depth === 0 ? 2 : depth + 3);
    }
    for (const c of n.children) {
      if (c.role === 'subplan') continue;
      if (c.label !== undefined) lines.push(`${indent}${c.label}`);
      render(c.node, depth + 1);
    }
  };
  render(root, 0);
  return lines;
}

/** The plan as a tree of EXPLAIN nodes, the one source of the TEXT and JSON formats. */
export function explainTree(plan: PhysicalPlan, scans?: ReadonlyMap<LakeScanPlan, ScanReport>, analysis?: ExplainAnalysis): ExplainNode {
  const metricsOf = (p: PhysicalPlan): OperatorMetrics | undefined => analysis?.metrics.get(p);
  let subplans = 0;
  const ctesShown = new Set<MaterializedCte>();
  const build = (p: PhysicalPlan): ExplainNode => {
    const found = subqueriesOf(p);
    const base = subplans;
    subplans += found.length;
    const node: ExplainNode = {
      title: '', details: [], children: [],
      ...(analysis ? { analyzed: { metrics: metricsOf(p), timing: analysis.timing } } : {}),
    };
    let title = '';
    const line = (t: string): void => { title = t; };
    const detail = (t: string): void => { node.details.push(t); };
    const emit = (child: PhysicalPlan): void => { node.children.push({ role: 'input', node: build(child) }); };
    emitNode(p, line, detail, emit, (label, child) => node.children.push({ role: 'cte', label, node: build(child) }));
    found.forEach((sub, i) => {
      node.children.push({ role: 'subplan', label: `SubPlan ${base + i + 1}${sub.correlated ? ' (correlated)' : ''}`, node: build(sub.plan) });
    });
    return { ...node, title };
  };
  const emitNode = (
    p: PhysicalPlan, line: (t: string) => void, detail: (t: string) => void, emit: (child: PhysicalPlan) => void,
    emitCte: (label: string, child: PhysicalPlan) => void,
  ): void => {
    switch (p.kind) {
      case 'lakeScan': {
        const at = p.at ? ` at ${selectorText(p.at)}` : '';
        line(`Lake Scan on ${p.table.namespace}.${p.table.name}${at}`);
        detail(`Columns: ${p.projection.join(', ')}`);
        if (p.filters.length > 0) {
          const report = scans?.get(p);
          detail(`Pushed Filters: ${p.filters.map((f, i) => `${filterText(f)}${report?.pushdown?.[i] ? ` [${report.pushdown[i]}]` : ''}`).join(', ')}`);
        }
        if (p.residual) detail(`Filter: ${formatExpr(p.residual, p.columns)}`);
        if (p.limit !== undefined) detail(`Limit: ${p.limit}`);
        if (p.pointRead) detail('Point Read: full primary key, in the session (no scan workers)');
        if (p.keepDecoded) detail('Row Groups Kept: decoded, in the reading thread\'s row-group cache, for the next run');
        if (p.mergeEngine !== undefined) detail(`Merge Engine: ${p.mergeEngine} (rows of a key are combined in the merge; only key filters prune before it)`);
        const report = scans?.get(p);
        if (report) {
          detail(`Scan Tasks: ${report.tasks}${report.snapshotId !== undefined && report.snapshotId !== null ? ` (snapshot ${report.snapshotId})` : ''}`);
          const s = report.stats;
          // Under ANALYZE an executed scan reports what it actually read (scanAnalysis).
          if (s && !(analysis && metricsOf(p))) {
            detail(`Partitions: ${s.partitionsTotal - s.partitionsPruned} of ${s.partitionsTotal} (pruned ${s.partitionsPruned})`);
            detail(`Files: ${s.filesTotal - s.filesPruned} of ${s.filesTotal} (pruned ${s.filesPruned}; base ${s.baseFiles}, change ${s.changeFiles})`);
            detail(`Bucket Nodes: ${s.nodesScanned} scanned, ${s.nodesPruned} pruned${(s.nodesSplit ?? 0) > 0 ? `, ${s.nodesSplit} merged in key-hash pieces` : ''}`);
            if ((s.merges ?? 0) > 0) detail(`Merges: ${s.merges} task${s.merges === 1 ? '' : 's'} merge change rows, ${s.mergesKept ?? 0} with kept positions`);
            if (s.rowGroupsTotal !== undefined) {
              detail(`Row Groups: ${s.rowGroupsTotal - (s.rowGroupsPruned ?? 0)} of ${s.rowGroupsTotal} (pruned by key hash ${s.rowGroupsPruned ?? 0})`);
            }
          }
        }
        const indexes = report?.stats?.indexes;
        if (indexes !== undefined && indexes.length > 0) detail(`Index Prune: ${indexes.join(', ')}, files skipped ${report?.stats?.filesPrunedByIndex ?? 0}`);
        if (analysis) scanAnalysis(p, metricsOf(p), report, detail);
        return;
      }
      case 'virtualScan':
        line(`Virtual Scan on ${p.schema}.${p.name}`);
        detail(`Columns: ${p.columns.map((c) => c.name).join(', ')}`);
        if (p.args !== undefined) detail(`Arguments: ${p.args.map((a) => formatExpr(a, [])).join(', ')}`);
        return;
      case 'values':
        line(`Values (${p.rows.length} row${p.rows.length === 1 ? '' : 's'})`);
        return;
      case 'cteScan':
        line(`CTE Scan on ${p.cte.name}`);
        // The WITH query's plan prints under its first scan only, as PostgreSQL prints it once.
        if (!ctesShown.has(p.cte)) {
          ctesShown.add(p.cte);
          emitCte(`CTE ${p.cte.name}`, p.cte.plan);
        }
        return;
      case 'filter':
        line(`Filter`);
        detail(`Predicate: ${formatExpr(p.predicate, p.input.columns)}`);
        emit(p.input);
        return;
      case 'project':
        line(`Project`);
        detail(`Output: ${p.exprs.map((e, i) => { const t = formatExpr(e, p.input.columns); return t === p.columns[i]!.name ? t : `${t} AS ${p.columns[i]!.name}`; }).join(', ')}`);
        emit(p.input);
        return;
      case 'projectSet':
        line(`ProjectSet`);
        {
          let at = 0;
          detail(`Output: ${p.exprs.map((e) => {
            const t = e.kind === 'setCall' ? `${e.fn.slice(0, e.fn.indexOf('('))}(${e.args.map((a) => formatExpr(a, p.input.columns)).join(', ')})` : formatExpr(e, p.input.columns);
            const width = e.kind === 'setCall' ? e.width ?? 1 : 1;
            const names = p.columns.slice(at, at + width).map((c) => c.name);
            at += width;
            const shown = width === 1 ? names[0]! : `(${names.join(', ')})`;
            return t === shown ? t : `${t} AS ${shown}`;
          }).join(', ')}${p.ordinality ? ' WITH ORDINALITY' : ''}`);
        }
        emit(p.input);
        return;
      case 'hashAggregate':
        line(`Hash Aggregate`);
        {
          // Like PostgreSQL, the keys a primary key determines are not listed as group keys.
          const dependent = new Set(p.dependentKeys ?? []);
          const keys = p.groupBy.filter((_e, i) => !dependent.has(i)).map((e) => formatExpr(e, p.input.columns));
          if (keys.length > 0) detail(`Group Key: ${keys.join(', ')}`);
          if (dependent.size > 0) detail(`Dependent Keys: ${[...dependent].map((i) => formatExpr(p.groupBy[i]!, p.input.columns)).join(', ')}`);
        }
        if (p.keyRangeSplit) detail(`Key Range Split: ${formatExpr(p.groupBy[p.keyRangeSplit.key]!, p.input.columns)}`);
        if (p.having) detail(`Filter: ${formatExpr(p.having, p.columns)}`);
        if (p.groupingSets) {
          detail(`Grouping Sets: ${p.groupingSets.map((set) => `(${set.map((i) => formatExpr(p.groupBy[i]!, p.input.columns)).join(', ')})`).join(', ')}`);
        }
        if (p.aggregates.length > 0) {
          detail(`Aggregates: ${p.aggregates.map((a) => `${a.fn.slice(0, a.fn.indexOf('(') > 0 ? a.fn.indexOf('(') : undefined)}(${a.distinct ? 'DISTINCT ' : ''}${a.args.length === 0 ? '*' : a.args.map((x) => formatExpr(x, p.input.columns)).join(', ')})`).join(', ')}`);
        }
        if (p.strategy !== undefined) detail(`Aggregate In Workers: ${p.strategy === 'keyRanges' ? 'one key range each, its groups finished there' : 'a partial aggregate per scan task, merged here'}`);
        {
          const m = metricsOf(p);
          const g = num(m, 'groups');
          if (g !== undefined) detail(`Groups: ${g}`);
          if (g !== undefined && p.having && m !== undefined) detail(`Rows Removed by Filter: ${Math.max(0, g - m.rowsOut)}`);
        }
        {
          // The scan below then did its work inside the workers' tasks, so its own time is near zero.
          const ranges = num(metricsOf(p), 'keyRanges');
          if (ranges !== undefined && p.keyRangeSplit) {
            detail(`Aggregate: in scan workers, ${ranges} ranges of ${formatExpr(p.groupBy[p.keyRangeSplit.key]!, p.input.columns)} (each range's groups finished in its worker)`);
          }
          const tasks = num(metricsOf(p), 'partialInWorkers');
          const sentRows = num(metricsOf(p), 'tasksSentRows');
          if (tasks !== undefined) {
            const rows = sentRows === undefined ? '' : `; ${sentRows} more sent their rows, the groups barely reducing them`;
            detail(`Partial Aggregate: in scan workers (${tasks} tasks${rows}; times below are the merge's)`);
          }
        }
        emit(p.input);
        return;
      case 'hashJoin': {
        line(`Hash Join (${p.joinType})`);
        const both = [...p.left.columns, ...p.right.columns];
        detail(`Hash Cond: ${p.leftKeys.map((k, i) => `(${formatExpr(k, p.left.columns)} = ${formatExpr(p.rightKeys[i]!, p.right.columns)})`).join(' AND ')}`);
        if (p.residual) detail(`Join Filter: ${formatExpr(p.residual, both)}`);
        const policy = buildSideText(p);
        if (policy !== undefined) detail(`Build Side: ${policy}`);
        if (p.runtimeFilters?.probe.length) detail(`Runtime Filters: ${targetsText(p.left, p.runtimeFilters.probe)}`);
        if (p.runtimeFilters?.build.length) detail(`Runtime Filters on Build Side: ${targetsText(p.right, p.runtimeFilters.build)}`);
        if (p.runtimeFilters?.lookups?.length) detail(`Key Lookups: ${lookupsText(p.left, p.runtimeFilters.lookups)}`);
        const build = num(metricsOf(p), 'buildRows');
        // The executor builds on a small left input of an inner join instead of the right.
        if (build !== undefined) detail(`Build Rows: ${build}${metricsOf(p)?.extra.buildSide === 'left' ? ' (left input)' : ''}`);
        const ruledOut = num(metricsOf(p), 'buildRowsRemovedByResidual');
        if (ruledOut !== undefined) detail(`Build Rows Removed by Join Filter: ${ruledOut}`);
        emit(p.left);
        emit(p.right);
        return;
      }
      case 'nestedLoopJoin':
        line(`Nested Loop Join (${p.joinType})`);
        if (p.condition) detail(`Join Filter: ${formatExpr(p.condition, [...p.left.columns, ...p.right.columns])}`);
        emit(p.left);
        emit(p.right);
        return;
      case 'sort':
        line(`Sort`);
        detail(`Sort Key: ${sortText(p.keys, p.input)}`);
        emit(p.input);
        return;
      case 'topN':
        line(`Top N`);
        detail(`Sort Key: ${sortText(p.keys, p.input)}`);
        detail(`Limit: ${formatExpr(p.limit)}${p.offset ? `, Offset: ${formatExpr(p.offset)}` : ''}`);
        emit(p.input);
        return;
      case 'limit':
        line(`Limit`);
        detail(`${p.limit ? `Limit: ${formatExpr(p.limit)}` : 'Limit: ALL'}${p.offset ? `, Offset: ${formatExpr(p.offset)}` : ''}${p.withTies ? ' WITH TIES' : ''}`);
        emit(p.input);
        return;
      case 'window':
        line(`Window`);
        detail(`Functions: ${p.functions.map((w) => w.fn).join(', ')}`);
        emit(p.input);
        return;
      case 'setOp':
        line(`${p.op[0]!.toUpperCase()}${p.op.slice(1)}${p.all ? ' All' : ''}`);
        if (p.concurrent === true) detail('Inputs: run at once, rows in arrival order');
        emit(p.left);
        emit(p.right);
        return;
      case 'distinct':
        line(`Distinct${p.on ? ` On (${p.on.map((e) => formatExpr(e, p.input.columns)).join(', ')})` : ''}`);
        emit(p.input);
        return;
      case 'insert':
        line(`Insert on ${p.table.namespace}.${p.table.name}${p.ref ? ` (branch ${p.ref})` : ''}`);
        if (p.onConflict) detail(`Conflict Resolution: ${p.onConflict.action === 'nothing' ? 'NOTHING' : 'UPDATE'}`);
        emit(p.input);
        return;
      case 'update':
        line(`Update on ${p.table.namespace}.${p.table.name}${p.ref ? ` (branch ${p.ref})` : ''}`);
        emit(p.input);
        return;
      case 'delete':
        line(`Delete on ${p.table.namespace}.${p.table.name}${p.ref ? ` (branch ${p.ref})` : ''}`);
        emit(p.input);
        return;
      case 'merge':
        line(`Merge on ${p.table.namespace}.${p.table.name}${p.ref ? ` (branch ${p.ref})` : ''}`);
        emit(p.input);
        return;
      case 'lateralJoin':
        line(`Nested Loop Lateral Join (${p.joinType})`);
        if (p.condition) detail(`Join Filter: ${formatExpr(p.condition, [...p.input.columns, ...p.right.columns])}`);
        emit(p.input);
        emit(p.right);
        return;
      case 'recursiveUnion':
        line(`Recursive Union${p.all ? ' All' : ''}`);
        emit(p.left);
        emit(p.right);
        return;
      case 'workTableScan':
        line(`WorkTable Scan on ${p.workTable.name}`);
        return;
      case 'dataModifyingCtes':
        // Transparent: the main statement's node, with each data-modifying WITH query under it once (it runs whether or not it is read).
        emitNode(p.input, line, detail, emit, emitCte);
        for (const cte of p.ctes) {
          if (ctesShown.has(cte)) continue;
          ctesShown.add(cte);
          emitCte(`CTE ${cte.name}`, cte.plan);
        }
        return;
    }
  };
  return build(plan);
}

/** The planner's build-side policy of a join (planner/physical/rules/join-build-side.ts); nothing for the planned shape. */
function buildSideText(p: HashJoinPlan): string | undefined {
  switch (p.buildSide) {
    case 'smallLeft':
      return `right input, or the left one if it ends within ${SMALL_LEFT_ROWS} rows`;
    case 'smallLeftProbeFirst':
      return `right input, or the left one if it ends within ${PROBE_FIRST_ROWS} rows and the right holds more than ${SMALL_RIGHT_ROWS}${p.leftLooksSmaller ? '; the left input is read first (estimated smaller)' : ''}`;
    default:
      return undefined;
  }
}

/** The scan columns runtime filter targets name, as `table.column`. */
function targetsText(side: PhysicalPlan, targets: readonly RuntimeFilterTargetSpec[]): string {
  return targets.map((t) => {
    const node = planAtPath(side, t.path);
    if (node?.kind !== 'lakeScan') return '?';
    return `${node.table.name}.${node.projection[t.column] ?? node.columns[t.column]?.name}`;
  }).join(', ');
}

/** "customer (c_w_id, c_d_id, c_id)": each looked-up scan with its key columns; up to KEY_LOOKUP_MAX_KEYS build rows. */
function lookupsText(side: PhysicalPlan, lookups: readonly KeyLookupSpec[]): string {
  const scans = lookups.map((l) => {
    const node = planAtPath(side, l.path);
    if (node?.kind !== 'lakeScan' || node.primaryKey === undefined) return '?';
    return `${node.table.name} (${node.primaryKey.map((c) => node.projection[c]).join(', ')})`;
  });
  return `${scans.join(', ')}, when the build has at most ${KEY_LOOKUP_MAX_KEYS.toLocaleString('en-US')} rows`;
}

function selectorText(at: ScanSnapshotSelector): string {
  switch (at.kind) {
    case 'ref': return `ref ${at.name}`;
    case 'snapshot': return `snapshot ${at.id}`;
    case 'timestamp': return `timestamp ${at.micros}`;
    case 'version': return `version ${at.value}`;
    case 'timestampExpr': return `timestamp ${formatExpr(at.expr, [])}`;
    case 'versionExpr': return `version ${formatExpr(at.expr, [])}`;
  }
}
