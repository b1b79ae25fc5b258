// The executor scans virtual relations, so the contract lives in src/exec; the
// binder resolves names to them through this re-export.
export type { VirtualColumn, VirtualTable, VirtualTableContext, VirtualTableRegistry } from '../../exec/index.js';
