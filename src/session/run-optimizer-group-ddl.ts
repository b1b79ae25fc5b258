import {
  DEFAULT_OPTIMIZER_GROUP, defaultGroupDropError, groupInUseError, optimizingSettings,
} from '../lake/index.js';
import type { Warehouse } from '../lake/index.js';
import type { OptimizingService } from '../service/index.js';
import type { OptimizerGroupDdl } from '../sql/index.js';

/**
 * CREATE / ALTER / DROP OPTIMIZER GROUP through the self-optimizing service (which stores groups
 * in the catalog and resizes its threads). The skips of IF [NOT] EXISTS are NOTICEs, and a group
 * in use is 2BP01 listing its tables, as PostgreSQL does for its own objects.
 */
export function runOptimizerGroupDdl(
  service: OptimizingService, warehouse: Warehouse, c: OptimizerGroupDdl, notice: (message: string, sqlstate: string) => void,
): string {
  const exists = (name: string) => service.groups().some((g) => g.name === name);
  switch (c.kind) {
    case 'createOptimizerGroup':
      if (c.ifNotExists && exists(c.group.name)) {
        notice(`optimizer group "${c.group.name}" already exists, skipping`, '42710');
        return 'CREATE OPTIMIZER GROUP';
      }
      service.createGroup(c.group, { ifNotExists: c.ifNotExists });
      return 'CREATE OPTIMIZER GROUP';
    case 'alterOptimizerGroup':
      service.alterGroup(c.name, c.change);
      return 'ALTER OPTIMIZER GROUP';
    case 'dropOptimizerGroup': {
      if (c.name === DEFAULT_OPTIMIZER_GROUP) throw defaultGroupDropError();
      if (!exists(c.name) && c.ifExists) {
        notice(`optimizer group "${c.name}" does not exist, skipping`, '00000');
        return 'DROP OPTIMIZER GROUP';
      }
      const users = warehouse.listTables().filter((t) => optimizingSettings(t).group === c.name);
      if (users.length > 0) throw groupInUseError(c.name, users);
      service.dropGroup(c.name, { ifExists: c.ifExists });
      return 'DROP OPTIMIZER GROUP';
    }
  }
}
