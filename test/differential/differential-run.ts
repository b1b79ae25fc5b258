import { startFloe } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';
import type { Feature } from './features.js';
import { replayDiverges, runHistory } from './run-history.js';
import type { Divergence, SidePair } from './run-history.js';
import { shrink } from './shrink.js';
import { SqlSide } from './sql-side.js';
import { toScript } from './statement.js';
import type { Statement } from './statement.js';

export interface RunOptions {
  readonly seed: number;
  /** Stop starting new histories once this many statements ran. */
  readonly statements: number;
  readonly features: ReadonlySet<Feature>;
  /** Statements per history (after its CREATE TABLEs). */
  readonly historyLength: number;
  /** Histories run side by side, each on its own connections and tables. */
  readonly lanes: number;
  /** Only this history (replay of a reported failure). */
  readonly onlyHistory?: number;
  /** Keep going after a divergence, collecting one per distinct signature (for surveys). */
  readonly keepGoing: boolean;
  /** Time allowed for shrinking each divergence, ms. */
  readonly shrinkMs: number;
  readonly log: (line: string) => void;
}

export interface Finding {
  readonly seed: number;
  readonly history: number;
  readonly divergence: Divergence;
  readonly shrunk: readonly Statement[];
  readonly script: string;
  /** The outcomes of the reproducer's last statement, replayed. */
  readonly replayed?: Divergence;
}

export interface RunReport {
  readonly statements: number;
  readonly histories: number;
  readonly ms: number;
  readonly findings: Finding[];
  /** Allowlisted divergences seen, by allowlist id (each ended its history). */
  readonly allowed: Map<string, number>;
}

/** A history's seed from the run's seed and its index (splitmix-style), so each history replays alone. */
export function historySeed(seed: number, index: number): number {
  let z = (seed + Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** Divergences of one statement shape with the same outcomes count as one finding in a survey. */
function signature(d: Divergence): string {
  return `${d.key}|${d.statement.shape}`;
}

export async function runDifferential(opts: RunOptions): Promise<RunReport> {
  const started = Date.now();
  const [floe, server] = await Promise.all([startFloe(), startPostgres()]);
  const oracle = await prepareOracle(server);
  const pairs: SidePair[] = [];
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const allowed = new Map<string, number>();
  let statements = 0;
  let histories = 0;
  let nextHistory = opts.onlyHistory ?? 0;
  let stop = false;
  try {
    for (let i = 0; i < opts.lanes; i++) {
      pairs.push({
        floe: await SqlSide.connect('floe', { host: floe.host, port: floe.port, user: floe.user, database: floe.database }),
        pg: await SqlSide.connect('postgres', { host: oracle.host, port: oracle.port, user: oracle.user, database: oracle.database }),
      });
    }
    const lane = async (pair: SidePair) => {
      while (!stop && statements < opts.statements) {
        const index = nextHistory++;
        if (opts.onlyHistory !== undefined && index !== opts.onlyHistory) break;
        const seed = historySeed(opts.seed, index);
        const result = await runHistory(pair, seed, `h${index}_`, opts.features, opts.historyLength);
        statements += result.statements;
        histories++;
        const d = result.divergence;
        if (d === undefined) continue;
        if (d.allowed !== undefined) {
          allowed.set(d.allowed.id, (allowed.get(d.allowed.id) ?? 0) + 1);
          continue;
        }
        const sig = signature(d);
        if (seen.has(sig)) continue;
        seen.add(sig);
        if (!opts.keepGoing) stop = true;
        opts.log(`divergence in history ${index} (seed ${opts.seed}); shrinking ${result.executed.length} statements …`);
        const shrunk = await shrink(result.executed, async (c) => (await replayDiverges(pair, c, result.tables, d.key)) !== undefined, { keepLast: true, deadline: Date.now() + opts.shrinkMs });
        const replayed = await replayDiverges(pair, shrunk, result.tables, d.key);
        findings.push({ seed: opts.seed, history: index, divergence: d, shrunk, script: toScript(shrunk), ...(replayed !== undefined ? { replayed } : {}) });
        opts.log(formatFinding(findings.at(-1)!));
      }
    };
    await Promise.all(pairs.map(lane));
  } finally {
    const busy = (side: 'floe' | 'pg') => pairs.reduce((n, p) => n + p[side].busyMs, 0) / 1000;
    const queries = (side: 'floe' | 'pg') => pairs.reduce((n, p) => n + p[side].queries, 0);
    opts.log(`differential: floe ${queries('floe')} queries, ${busy('floe').toFixed(1)} s busy; postgresql ${queries('pg')} queries, ${busy('pg').toFixed(1)} s busy (summed over ${opts.lanes} lanes)`);
    for (const p of pairs) {
      await p.floe.end();
      await p.pg.end();
    }
    await floe.stop();
    await server.stop();
  }
  return { statements, histories, ms: Date.now() - started, findings, allowed };
}

export function formatFinding(f: Finding): string {
  const d = f.divergence;
  const r = f.replayed ?? d;
  return [
    `── divergence (${d.kind}${d.detail !== '' ? `: ${d.detail}` : ''})`,
    `replay: FLOE_DIFF_SEED=${f.seed} FLOE_DIFF_HISTORY=${f.history}`,
    `statement: ${d.statement.floeSql ?? d.statement.sql}`,
    `floe:       ${d.floe}`,
    `postgresql: ${d.postgres}`,
    `shrunk reproducer (${f.shrunk.length} statements; last one: floe ${r.floe.split('\n')[0]} / postgresql ${r.postgres.split('\n')[0]}):`,
    f.script,
  ].join('\n');
}
