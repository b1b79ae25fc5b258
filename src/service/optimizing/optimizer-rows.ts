import type { OptimizerRow } from './optimizing-service.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';

/** floe_optimizers: the catalog's optimizer list, each running or lost by its last heartbeat against the lease. */
export function optimizerRows(warehouse: Pick<OptimizingWarehouse, 'listOptimizers'>, nowMicros: bigint, leaseMicros: bigint): OptimizerRow[] {
  return warehouse.listOptimizers().map((o) => ({ ...o, state: nowMicros - o.heartbeatMicros > leaseMicros ? 'lost' : 'running' }));
}
