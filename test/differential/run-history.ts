import { allowedDivergence } from './allowlist.js';
import type { AllowedDivergence } from './allowlist.js';
import type { Feature } from './features.js';
import { HistoryGenerator } from './generator.js';
import type { TableSnapshot } from './generator.js';
import { describeOutcome, sameOutcome } from './outcome.js';
import type { Outcome } from './outcome.js';
import type { SqlSide } from './sql-side.js';
import type { Statement } from './statement.js';
import { rowBag, tlpMismatch } from './tlp.js';
import type { Row } from './tlp.js';

export interface SidePair {
  readonly floe: SqlSide;
  readonly pg: SqlSide;
}

export interface Divergence {
  /** outcome: status or row count differ; contents: a table's rows differ; tlp: a query result or the partition differs. */
  readonly kind: 'outcome' | 'contents' | 'tlp';
  /** What a shrunk history must reproduce: the kind, and for outcomes the pair of SQLSTATEs or verbs. */
  readonly key: string;
  readonly statement: Statement;
  readonly floe: string;
  readonly postgres: string;
  readonly detail: string;
  /** Set when the allowlist tolerates it. */
  readonly allowed?: AllowedDivergence;
}

export interface HistoryResult {
  /** Every statement sent, up to and including a diverging one. */
  readonly executed: Statement[];
  readonly tables: readonly string[];
  /** SQL statements each side ran (TLP checks count their three queries). */
  readonly statements: number;
  readonly divergence?: Divergence;
}

async function execute(side: SqlSide, stmt: Statement, isFloe: boolean): Promise<Outcome> {
  if (stmt.copyData !== undefined) return side.copyIn(stmt.sql, stmt.copyData);
  return side.run(isFloe && stmt.floeSql !== undefined ? stmt.floeSql : stmt.sql);
}

function outcomeKey(o: Outcome): string {
  return o.ok ? o.command : o.code;
}

function sameRows(a: Outcome, b: Outcome): boolean {
  if (!a.ok || !b.ok) return true;
  if (a.rows === undefined || b.rows === undefined) return true;
  return JSON.stringify(rowBag(a.rows)) === JSON.stringify(rowBag(b.rows));
}

function rowsText(o: Outcome): string {
  if (!o.ok) return describeOutcome(o);
  return `${JSON.stringify(o.columns ?? [])}\n${rowBag(o.rows ?? []).join('\n')}`;
}

/** Runs a statement on both sides and compares the outcome (and rows, for queries). */
async function stepOutcome(pair: SidePair, stmt: Statement, snapshots?: ReadonlyMap<string, TableSnapshot>): Promise<{ pg: Outcome; divergence?: Divergence }> {
  if (stmt.tlp !== undefined) return { pg: { ok: true, command: 'SELECT', rowCount: null }, ...(await checkTlp(pair, stmt, snapshots?.get(stmt.tlp.table))) };
  const [floe, pg] = await Promise.all([execute(pair.floe, stmt, true), execute(pair.pg, stmt, false)]);
  if (!sameOutcome(floe, pg)) {
    const allowed = allowedDivergence(stmt, floe, pg);
    return { pg, divergence: { kind: 'outcome', key: `outcome ${outcomeKey(floe)} / ${outcomeKey(pg)}`, statement: stmt, floe: describeOutcome(floe), postgres: describeOutcome(pg), detail: '', ...(allowed !== undefined ? { allowed } : {}) } };
  }
  if (!sameRows(floe, pg)) return { pg, divergence: { kind: 'outcome', key: 'rows', statement: stmt, floe: rowsText(floe), postgres: rowsText(pg), detail: 'query rows differ' } };
  return { pg };
}

/** TLP: each part agrees with PostgreSQL, and on Floe the three parts add up to the whole table. */
async function checkTlp(pair: SidePair, stmt: Statement, verified?: TableSnapshot): Promise<{ divergence?: Divergence }> {
  const tlp = stmt.tlp!;
  const floe: Outcome[] = [];
  const pg: Outcome[] = [];
  // The whole table: the contents both sides last agreed on, else Floe's answer (compared too).
  if (verified !== undefined) {
    const whole: Outcome = { ok: true, command: 'SELECT', rowCount: verified.rows.length, columns: verified.columns, rows: verified.rows };
    floe.push(whole);
    pg.push(whole);
  }
  for (const q of verified !== undefined ? tlp.parts : [tlp.whole, ...tlp.parts]) {
    const [f, p] = await Promise.all([pair.floe.run(q), pair.pg.run(q)]);
    floe.push(f);
    pg.push(p);
    if (!sameOutcome(f, p) || !sameRows(f, p)) {
      return { divergence: { kind: 'tlp', key: 'tlp', statement: stmt, floe: rowsText(f), postgres: rowsText(p), detail: `query differs: ${q}` } };
    }
  }
  const [whole, ...parts] = floe;
  if (whole!.ok && parts.every((p) => p.ok)) {
    const m = tlpMismatch(rowsOf(whole!), parts.map(rowsOf));
    if (m.missing.length > 0 || m.extra.length > 0) {
      return { divergence: { kind: 'tlp', key: 'tlp', statement: stmt, floe: `missing ${m.missing.join(' ')}; extra ${m.extra.join(' ')}`, postgres: '(partition holds)', detail: 'WHERE p ∪ WHERE NOT p ∪ WHERE p IS NULL ≠ whole table on Floe' } };
    }
  }
  return {};
}

function rowsOf(o: Outcome): readonly Row[] {
  return o.ok ? o.rows ?? [] : [];
}

/** Compares the full contents of tables; hands back PostgreSQL's view for the generator. */
async function compareContents(pair: SidePair, stmt: Statement, tables: readonly string[], snapshots?: Map<string, TableSnapshot>): Promise<Divergence | undefined> {
  for (const t of tables) {
    const q = `SELECT * FROM ${t}`;
    const [f, p] = await Promise.all([pair.floe.run(q), pair.pg.run(q)]);
    if (!sameOutcome(f, p) || (f.ok && p.ok && (JSON.stringify(f.columns) !== JSON.stringify(p.columns) || !sameRows(f, p)))) {
      return { kind: 'contents', key: 'contents', statement: stmt, floe: rowsText(f), postgres: rowsText(p), detail: `contents of ${t} differ` };
    }
    if (p.ok && snapshots !== undefined) snapshots.set(t, { columns: p.columns ?? [], rows: p.rows ?? [] });
  }
  return undefined;
}

/** Statements the history sends to each side (a TLP check sends its three partitioned queries). */
function sentCount(stmt: Statement): number {
  return stmt.tlp !== undefined ? 3 : 1;
}

/** Generates and runs one history of about `length` statements, comparing after every statement. */
export async function runHistory(pair: SidePair, seed: number, prefix: string, features: ReadonlySet<Feature>, length: number): Promise<HistoryResult> {
  const gen = new HistoryGenerator(seed, features, prefix);
  const executed: Statement[] = [];
  const snapshots = new Map<string, TableSnapshot>();
  let statements = 0;
  const tables = () => gen.tables.map((t) => t.name);
  const step = async (stmt: Statement): Promise<Divergence | undefined> => {
    executed.push(stmt);
    statements += sentCount(stmt);
    const { pg, divergence } = await stepOutcome(pair, stmt, snapshots);
    if (divergence !== undefined) return divergence;
    gen.observe(stmt, pg);
    return compareContents(pair, stmt, stmt.tables, snapshots);
  };
  const finish = async (divergence?: Divergence): Promise<HistoryResult> => {
    await dropTables(pair, tables());
    return { executed, tables: tables(), statements, ...(divergence !== undefined ? { divergence } : {}) };
  };
  for (const stmt of gen.createTables()) {
    const d = await step(stmt);
    if (d !== undefined) return finish(d);
  }
  for (let i = 0; i < length; i++) {
    const d = await step(gen.next(snapshots));
    if (d !== undefined) return finish(d);
  }
  for (const stmt of gen.closing()) {
    const d = await step(stmt);
    if (d !== undefined) return finish(d);
  }
  const last = executed.at(-1)!;
  return finish(await compareContents(pair, last, tables()));
}

async function dropTables(pair: SidePair, tables: readonly string[]): Promise<void> {
  for (const side of [pair.floe, pair.pg]) {
    await side.run('ROLLBACK');
    for (const t of tables) await side.run(`DROP TABLE IF EXISTS ${t}`);
  }
}

/**
 * Replays `statements` on fresh tables and reports whether the last one still
 * diverges in the same way (same key; earlier statements are not compared).
 */
export async function replayDiverges(pair: SidePair, statements: readonly Statement[], tables: readonly string[], key: string): Promise<Divergence | undefined> {
  await dropTables(pair, tables);
  try {
    for (const stmt of statements.slice(0, -1)) {
      if (stmt.tlp !== undefined) continue;
      await Promise.all([execute(pair.floe, stmt, true), execute(pair.pg, stmt, false)]);
    }
    const last = statements.at(-1)!;
    const { divergence } = await stepOutcome(pair, last);
    const d = divergence ?? (await compareContents(pair, last, tables));
    return d !== undefined && d.key === key && d.allowed === undefined ? d : undefined;
  } finally {
    await dropTables(pair, tables);
  }
}
