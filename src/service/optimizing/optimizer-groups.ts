import { DEFAULT_OPTIMIZER_GROUP, defaultGroupDropError, groupInUseError, optimizingSettings } from '../../lake/index.js';
import type { OptimizerGroup, SchedulingPolicy } from '../../lake/index.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';

/** The group every table belongs to unless `self-optimizing.group` names another. */
export const DEFAULT_GROUP = DEFAULT_OPTIMIZER_GROUP;

/**
 * The optimizer groups as the service sees them: the catalog's, plus `default`, which
 * always exists with the process's `--optimizer-threads` threads unless a stored row of
 * that name overrides it. Groups live in the catalog so every process on the warehouse
 * shares them.
 */
export class OptimizerGroups {
  readonly #warehouse: OptimizingWarehouse;
  readonly #defaultThreads: number;

  constructor(warehouse: OptimizingWarehouse, defaultThreads: number) {
    this.#warehouse = warehouse;
    this.#defaultThreads = defaultThreads;
  }

  /** By name; `default` first. */
  list(): OptimizerGroup[] {
    const stored = this.#warehouse.listOptimizerGroups();
    const implicit = stored.some((g) => g.name === DEFAULT_GROUP)
      ? [] : [{ name: DEFAULT_GROUP, threads: this.#defaultThreads, schedulingPolicy: 'quota' as const }];
    return [...implicit, ...stored].sort((a, b) => (a.name === DEFAULT_GROUP ? -1 : b.name === DEFAULT_GROUP ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  create(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void {
    this.#warehouse.createOptimizerGroup(group, opts);
  }

  /** Altering the implicit `default` stores it with the change. */
  alter(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): void {
    const stored = this.#warehouse.listOptimizerGroups().some((g) => g.name === name);
    if (!stored && name === DEFAULT_GROUP) {
      this.#warehouse.createOptimizerGroup({
        name, threads: change.threads ?? this.#defaultThreads, schedulingPolicy: change.schedulingPolicy ?? 'quota',
      });
      return;
    }
    this.#warehouse.alterOptimizerGroup(name, change);
  }

  /**
   * `default` is never dropped (the implicit one is always there). A group that tables
   * still name is refused: they would stop being optimized without anyone having asked.
   */
  drop(name: string, opts?: { ifExists?: boolean }): void {
    if (name === DEFAULT_GROUP) throw defaultGroupDropError();
    const users = this.#warehouse.listTables().filter((t) => optimizingSettings(t).group === name);
    if (users.length > 0) throw groupInUseError(name, users);
    this.#warehouse.dropOptimizerGroup(name, opts);
  }
}
