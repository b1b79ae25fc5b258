import { FloeError } from '../../../common/floe-error.js';
import { SqlState } from '../../../common/sqlstate.js';
import type { BuildSidePolicy, JoinType } from '../../plan/physical-plan.js';
import type { Buffered } from './buffered-input.js';

/** Inner joins whose left input ends within this many rows build on the left. */
export const SMALL_LEFT_ROWS = 50_000;

/**
 * Left/semi/anti joins whose build side a runtime filter could shrink read up to
 * this many left rows first; when the left input ends within them, its keys filter
 * the build side's scans (a per-key aggregate over a large table, joined to a few filtered keys).
 */
export const PROBE_FIRST_ROWS = 250_000;

/**
 * Left/semi/anti joins over a small left input build on it only when the right
 * input holds more rows than this: a smaller right input builds as planned (and
 * a left join then keeps the probe order).
 */
export const SMALL_RIGHT_ROWS = 50_000;

/** What a build-side rule may do before a hash join starts: read ahead on either input, and see what the planner decided. */
export interface JoinReadAhead {
  /** The probe side waits for runtime filters from the build (the planner placed some). */
  readonly runtimeFilters: boolean;
  /** The planner expects the left input to be the smaller one. */
  readonly leftLooksSmaller: boolean;
  readonly left: Buffered;
  readonly right: Buffered;
  /** Buffers left batches until the input ends or more than `limit` rows are held. */
  readLeft(limit: number): Promise<void>;
  /** The same for the right input (opened on first use). */
  readRight(limit: number): Promise<void>;
  /** The most keys a runtime filter holds. */
  runtimeFilterMaxKeys(): number;
  /** Fills the right side's runtime filters from the (whole, buffered) left input's keys. */
  installBuildFilters(): Promise<void>;
}

/**
 * Which input a hash join's table holds: the planned right input, or the left
 * one when it turns out small. The planner picks the policy (HashJoinPlan.buildSide);
 * its rule reads ahead only as far as its decision needs.
 */
export interface BuildSideRule {
  choose(io: JoinReadAhead): Promise<'left' | 'right'>;
}

/** Inner joins: a left input that ends within SMALL_LEFT_ROWS holds the table. */
const innerJoin: BuildSideRule = {
  async choose(io) {
    // With runtime filters the (estimated smaller) right side builds first, so the
    // probe side's scans start with their filters installed, unless the planner
    // expects the left input to be the smaller one.
    if (!io.runtimeFilters || io.leftLooksSmaller) await io.readLeft(SMALL_LEFT_ROWS);
    if (!io.left.done) return 'right';
    await io.installBuildFilters();
    return 'left';
  },
};

/**
 * Left, semi and anti joins: a left input that ends within PROBE_FIRST_ROWS
 * filters the right input's scans, and holds the table unless the right input
 * turns out smaller still. A build side past the runtime filter cap gets no
 * filter anyway (an EXISTS over all of lineitem): then a left input that ends
 * soon is worth reading, and building on it spares materializing the right input.
 */
const leftSemiAntiJoin: BuildSideRule = {
  async choose(io) {
    if (!io.runtimeFilters || io.leftLooksSmaller) await io.readLeft(PROBE_FIRST_ROWS);
    if (io.left.done) {
      await io.installBuildFilters();
      await io.readRight(SMALL_RIGHT_ROWS);
      return io.right.done ? 'right' : 'left';
    }
    if (!io.runtimeFilters) return 'right';
    await io.readRight(io.runtimeFilterMaxKeys());
    if (io.right.done) return 'right';
    await io.readLeft(PROBE_FIRST_ROWS);
    if (!io.left.done) return 'right';
    // The right scan's tasks still to launch take the left keys as their filter.
    await io.installBuildFilters();
    return 'left';
  },
};

/** The planned shape: the right input holds the table, nothing read ahead. */
const planned: BuildSideRule = {
  choose: () => Promise.resolve('right'),
};

/** Join types each policy can run: building on the left must keep the join's output (its unmatched rows). */
const JOIN_TYPES: Readonly<Record<BuildSidePolicy, readonly JoinType[]>> = {
  right: ['inner', 'left', 'right', 'full', 'semi', 'anti', 'mark'],
  smallLeft: ['inner'],
  smallLeftProbeFirst: ['left', 'semi', 'anti'],
};

/** The rule that runs a planned build-side policy; a policy the join type cannot run is the planner's error (XX000). */
export function buildSideRule(policy: BuildSidePolicy, joinType: JoinType): BuildSideRule {
  if (!JOIN_TYPES[policy].includes(joinType)) {
    throw new FloeError(SqlState.internalError, `hash join (${joinType}) cannot build by the ${policy} policy`);
  }
  switch (policy) {
    case 'smallLeft': return innerJoin;
    case 'smallLeftProbeFirst': return leftSemiAntiJoin;
    case 'right': return planned;
  }
}
