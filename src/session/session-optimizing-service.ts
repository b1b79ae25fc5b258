import type { Warehouse } from '../lake/index.js';
import { InlineOptimizingService, type OptimizingService } from '../service/index.js';

const inline = new WeakMap<Warehouse, OptimizingService>();

/**
 * The service a session's CALL optimize, optimizer group DDL and service views go through: the
 * one the server passed (its scheduler), or one inline service per warehouse (no background work).
 */
export function sessionOptimizingService(warehouse: Warehouse, given: OptimizingService | undefined): OptimizingService {
  if (given !== undefined) return given;
  let s = inline.get(warehouse);
  if (s === undefined) inline.set(warehouse, (s = new InlineOptimizingService(warehouse)));
  return s;
}
