/**
 * Child process for the append-compaction kill test: opens the warehouse, starts a full
 * optimize of `table`, and after the first rewrite has stored its output prints
 * "rewrote" and hangs there until it is killed.
 * `node --import tsx append-optimize-child.ts <dir> <table>`.
 */
import { executeAppendFilesRewrite, openWarehouse } from '../../../src/lake/index.js';
import type { AppendFilesRewriteTask, NodeRewriteResult } from '../../../src/lake/index.js';

const [dir, name] = process.argv.slice(2);
const wh = await openWarehouse({ path: dir! });
const t = wh.getTable('public', name!)!;
await wh.optimize(t, {
  kind: 'full',
  runNodeRewrite: async (task) => {
    const r = await executeAppendFilesRewrite(task as unknown as AppendFilesRewriteTask);
    process.stdout.write('rewrote\n');
    await new Promise(() => undefined);
    return r as unknown as NodeRewriteResult;
  },
});
