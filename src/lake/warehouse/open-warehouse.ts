import type { Warehouse, WarehouseOptions } from './warehouse.js';

export async function openWarehouse(opts: WarehouseOptions): Promise<Warehouse> {
  void opts;
  throw new Error('not implemented yet');
}
