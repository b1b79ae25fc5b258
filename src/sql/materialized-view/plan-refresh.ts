import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BindEnv } from '../bind-env.js';
import { refreshModeOf } from './view-options.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { definitionShape } from './definition-shapes.js';
import { PositionParameters } from './position-parameters.js';
import { emptyingStatement, fullRefreshStatement, incrementalRefreshStatement, incrementalTerms, netChangeChecks, type NetChangeCheck, type RefreshTarget } from './refresh-statements.js';

/** What a refresh was asked to do: bring the rows up to date (incremental when it can), recompute them all, or empty them. */
export type RefreshRequest = 'auto' | 'full' | 'no data';

export interface RefreshInput {
  readonly definition: string;
  /** Binding as the refresh: the view's search_path, and `maintainsView` set to its table. */
  readonly env: BindEnv;
  readonly target: RefreshTarget;
  readonly request: RefreshRequest;
  /** Why the view's refreshes are full ones (its record), when they are. */
  readonly fullRefreshReason: string | undefined;
  readonly populated: boolean;
  /** The view's positions: base table id → snapshot id. */
  readonly positions: Readonly<Record<string, string>>;
  /** main's head of every table, read once (Warehouse.branchHeads). */
  readonly heads: ReadonlyMap<number, bigint>;
  /** Relations the definition reads directly (its record's dependsOn). */
  readonly dependsOn: readonly number[];
  /** Whether every change of a table between two of its snapshots carries its before-image. */
  readonly changelogComplete: (tableId: number, from: bigint, to: bigint) => boolean;
  /** The change sets the plan's `checks` found to net to nothing; undefined before they ran. */
  readonly emptyChanges?: ReadonlySet<string>;
  /** Whether to check a change set (by its id) before planning; default: every one. */
  readonly checkChanges?: (id: string) => boolean;
}

export interface RefreshPlan {
  readonly mode: 'incremental' | 'full' | 'no data';
  /** The MERGE to run; undefined when nothing changed since the positions. */
  readonly statement: RefreshStatement | undefined;
  /** The positions the view moves to. */
  readonly positions: Record<string, string>;
  /**
   * Change sets to check first (no statement yet): an incremental refresh over complete
   * changelogs asks which net to nothing, then is planned again with `emptyChanges`.
   */
  readonly checks?: readonly NetChangeCheck[];
}

/**
 * A refresh's MERGE: its snapshot positions are its parameters ($1…, int8; PositionParameters),
 * so the same view refreshed over the same terms runs the same text. `key` names that text;
 * `build` makes it (a session holding the key's bound statement need not).
 */
export interface RefreshStatement {
  readonly key: string;
  readonly params: readonly (bigint | null)[];
  build(): ParsedStatement;
}

/** The statement that refreshes a materialized view, and where it leaves the view. */
export function planRefresh(input: RefreshInput): RefreshPlan {
  const { parsed: definition, shape } = definitionShape(input.definition, input.env);
  const baseIds = shape.kind === 'aggregate' ? shape.arm.relations.map((r) => r.tableId)
    : shape.kind === 'linear' ? shape.arms.flatMap((a) => a.relations.map((r) => r.tableId))
      : input.dependsOn.filter((id) => input.heads.has(id));
  const to = new Map<number, string>(baseIds.map((id) => [id, String(input.heads.get(id) ?? 0n)]));
  const positions = Object.fromEntries(to);
  const parameters = new PositionParameters(baseIds);
  const from = new Map<number, string>(baseIds.flatMap((id) => (input.positions[String(id)] === undefined ? [] : [[id, input.positions[String(id)]!] as const])));
  const statement = (key: string, build: () => ParsedStatement): RefreshStatement => ({ key, params: parameters.values(from, to), build });
  if (input.request === 'no data') return { mode: 'no data', statement: statement('no data', () => emptyingStatement(definition, input.target)), positions: {} };
  const incremental = input.request === 'auto' && input.populated && input.fullRefreshReason === undefined && shape.kind !== 'full' && from.size === to.size;
  if (incremental) {
    const completeChangelogs = new Set([...from].filter(([id, f]) => f !== to.get(id) && input.changelogComplete(id, BigInt(f), BigInt(to.get(id)!))).map(([id]) => id));
    const p = { from, to, parameters, completeChangelogs, ...(input.emptyChanges === undefined ? {} : { emptyChanges: input.emptyChanges }) };
    if (input.emptyChanges === undefined) {
      const checks = netChangeChecks(shape, p, input.checkChanges ?? (() => true));
      if (checks.length > 0) return { mode: 'incremental', statement: undefined, positions, checks };
    }
    const terms = incrementalTerms(shape, p);
    return {
      mode: 'incremental', positions,
      statement: terms === undefined ? undefined : statement(`incremental ${terms}`, () => incrementalRefreshStatement(shape, definition, input.target, p)),
    };
  }
  return { mode: 'full', statement: statement('full', () => fullRefreshStatement(shape, definition, input.target, parameters)), positions };
}

/**
 * Why a view with these options is refreshed in full (undefined: incrementally); 0A000 when
 * `refresh = 'incremental'` asks for what its query's shape does not allow.
 */
export function fullRefreshReasonOf(definition: string, env: BindEnv, options: readonly string[], viewName: string): string | undefined {
  const { shape } = definitionShape(definition, env);
  const mode = refreshModeOf(options);
  if (mode === 'incremental' && shape.kind === 'full') {
    throw new FloeError(SqlState.featureNotSupported, `materialized view "${viewName}" cannot be refreshed incrementally: ${shape.reason}`, {
      hint: "Use refresh = 'auto' to refresh it in full.",
    });
  }
  return mode === 'full' ? "refresh = 'full'" : shape.kind === 'full' ? shape.reason : undefined;
}
