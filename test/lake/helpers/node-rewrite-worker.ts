/** A piscina worker that runs one keyed node rewrite (the self-optimizing service's pool does the same). */
import { executeNodeRewrite } from '../../../src/lake/index.js';
import type { KeyedNodeRewriteResult, KeyedNodeRewriteTask } from '../../../src/lake/index.js';

export default function run(task: KeyedNodeRewriteTask): Promise<KeyedNodeRewriteResult> {
  return executeNodeRewrite(task);
}
