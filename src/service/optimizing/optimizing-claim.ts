import { isDeadLocalOwner } from '../../common/process-owner.js';
import type { OptimizeKind, OptimizingStatus, OptimizingTableState } from '../../lake/index.js';
import { backOffMs } from './back-off.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';
import type { ServiceClock } from './service-clock.js';

/** A table state nobody has written yet. */
export function idleState(tableId: number): OptimizingTableState {
  return {
    tableId, status: 'idle', statusSinceMicros: 0n, owner: '', heartbeatMicros: 0n,
    lastMinorMicros: undefined, lastMajorMicros: undefined, lastFullMicros: undefined,
    consecutiveFailures: 0, nextAttemptMicros: undefined,
  };
}

/** A claim's default lease: a non-idle status not heartbeated for this long reads as abandoned. */
export const DEFAULT_LEASE_MICROS = 60_000_000n;

/**
 * A non-idle status whose owner stopped heartbeating reads as idle: its process died. On
 * the owner's own host a process that is gone is seen at once, so a restarted gateway
 * does not wait out its killed predecessor's lease.
 */
export function isAbandoned(state: OptimizingTableState, nowMicros: bigint, leaseMicros: bigint): boolean {
  return state.status !== 'idle' && (nowMicros - state.heartbeatMicros > leaseMicros || isDeadLocalOwner(state.owner));
}

/**
 * This process's hold on one table while it optimizes it: taken atomically through the
 * catalog (so schedulers sharing a warehouse never both take a table), kept alive by
 * heartbeats, and released to idle with the outcome. Every change is saved at once, so
 * floe_optimizing in any process shows it.
 */
export class OptimizingClaim {
  #state: OptimizingTableState;
  readonly #warehouse: OptimizingWarehouse;
  readonly #clock: ServiceClock;

  private constructor(warehouse: OptimizingWarehouse, clock: ServiceClock, state: OptimizingTableState) {
    this.#warehouse = warehouse;
    this.#clock = clock;
    this.#state = state;
  }

  /** Undefined when another live owner holds the table. */
  static tryTake(warehouse: OptimizingWarehouse, clock: ServiceClock, tableId: number, owner: string, leaseMicros: bigint): OptimizingClaim | undefined {
    const now = clock.nowMicros();
    const held = warehouse.listOptimizingStates().find((s) => s.tableId === tableId);
    // The catalog takes it from a dead owner only if that owner still holds it when it looks.
    const deadOwner = held !== undefined && held.status !== 'idle' && isDeadLocalOwner(held.owner) ? held.owner : undefined;
    if (!warehouse.tryClaimOptimizing(tableId, owner, now, leaseMicros, deadOwner)) return undefined;
    const saved = warehouse.listOptimizingStates().find((s) => s.tableId === tableId) ?? idleState(tableId);
    const claim = new OptimizingClaim(warehouse, clock, { ...saved, status: 'planning', statusSinceMicros: now, owner, heartbeatMicros: now });
    claim.#save();
    return claim;
  }

  get state(): OptimizingTableState { return this.#state; }

  setStatus(status: OptimizingStatus): void {
    if (status === this.#state.status) return;
    const now = this.#clock.nowMicros();
    this.#state = { ...this.#state, status, statusSinceMicros: now, heartbeatMicros: now };
    this.#save();
  }

  heartbeat(): void {
    this.#state = { ...this.#state, heartbeatMicros: this.#clock.nowMicros() };
    this.#save();
  }

  /**
   * Back to idle with the outcome: the kind's last time on success, the failure streak and
   * back-off otherwise. `notBeforeMicros` holds a successful table back too (one the
   * scheduler found due but whose optimize had nothing to commit, so it does not spin).
   */
  release(outcome: { kind: OptimizeKind; succeeded: boolean; notBeforeMicros?: bigint } | undefined): void {
    const now = this.#clock.nowMicros();
    let s: OptimizingTableState = { ...this.#state, status: 'idle', statusSinceMicros: now, heartbeatMicros: now };
    if (outcome !== undefined) {
      s = outcome.succeeded
        ? {
          ...s, consecutiveFailures: 0, nextAttemptMicros: outcome.notBeforeMicros,
          lastMinorMicros: outcome.kind === 'minor' ? now : s.lastMinorMicros,
          lastMajorMicros: outcome.kind === 'major' ? now : s.lastMajorMicros,
          lastFullMicros: outcome.kind === 'full' ? now : s.lastFullMicros,
        }
        : {
          ...s, consecutiveFailures: s.consecutiveFailures + 1,
          nextAttemptMicros: now + BigInt(backOffMs(s.consecutiveFailures + 1)) * 1000n,
        };
    }
    this.#state = s;
    this.#save();
  }

  #save(): void {
    this.#warehouse.saveOptimizingState(this.#state);
  }
}
