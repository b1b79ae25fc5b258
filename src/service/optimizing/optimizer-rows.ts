import { isDeadLocalOwner } from '../../common/process-owner.js';
import type { OptimizerRow } from './optimizing-service.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';

/**
 * floe_optimizers: the catalog's optimizer list, each running or lost: lost once its last
 * heartbeat is older than the lease, or at once when it ran on this host and its process is
 * gone (as its optimizing claims are then let go at once).
 */
export function optimizerRows(warehouse: Pick<OptimizingWarehouse, 'listOptimizers'>, nowMicros: bigint, leaseMicros: bigint): OptimizerRow[] {
  return warehouse.listOptimizers().map((o) => ({
    ...o, state: nowMicros - o.heartbeatMicros > leaseMicros || isDeadLocalOwner(`${o.host}:${o.pid}`) ? 'lost' : 'running',
  }));
}
