/**
 * Child process of the mid-commit crash test: runs the real OptimizingScheduler on a
 * warehouse and SIGKILLs itself at one phase of the first optimize it starts. argv:
 * <warehouse dir> <phase>, where phase is
 * - 'commit': every node's base files are written, the catalog commit has not run;
 * - 'done': the catalog commit ran, the history and the claim's release have not.
 * The hook is the optimizer's own progress callback, wrapped around the warehouse the
 * scheduler is given: no production code knows about it. Exits 3 if no optimize starts.
 */
import { openWarehouse } from '../../src/lake/index.js';
import type { OptimizeOptions, TableMetadata } from '../../src/lake/index.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import type { OptimizingWarehouse } from '../../src/service/optimizing/optimizing-warehouse.js';

const [dir, phase] = process.argv.slice(2);
const wh = await openWarehouse({ path: dir! });
const killing = new Proxy(wh, {
  get(target, prop) {
    if (prop === 'optimize') {
      return (table: TableMetadata, opts: OptimizeOptions = {}) => {
        // 'done' also ends a run with nothing to do: only one that committed counts.
        let committing = false;
        return target.optimize(table, {
          ...opts,
          onProgress: (p) => {
            opts.onProgress?.(p);
            if (p.phase === 'commit') committing = true;
            if (p.phase === phase && (phase !== 'done' || committing)) process.kill(process.pid, 'SIGKILL');
          },
        });
      };
    }
    const v = Reflect.get(target, prop) as unknown;
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  },
}) as OptimizingWarehouse;
process.stdout.write(`pid ${process.pid}\n`);
new OptimizingScheduler({ warehouse: killing, tickMs: 20 }).start();
setTimeout(() => process.exit(3), 30_000);
