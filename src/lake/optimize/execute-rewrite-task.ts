import { executeChangeGroupRewrite } from '../log/execute-change-group-rewrite.js';
import { executeAppendFilesRewrite } from './execute-append-files-rewrite.js';
import { executeNodeRewrite } from './execute-node-rewrite.js';
import type { NodeRewriteResult, NodeRewriteTask } from './optimize-result.js';

/** Runs any optimizer rewrite task where it is called: an optimizer worker thread, or inline. */
export function executeRewriteTask(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  switch (task.kind) {
    case 'keyed-node': return executeNodeRewrite(task);
    case 'append-files': return executeAppendFilesRewrite(task);
    case 'change-group': return executeChangeGroupRewrite(task);
  }
}

/** The result of a task run through OptimizeOptions.runNodeRewrite, checked to be of the task's kind. */
export function rewriteResultOf<K extends NodeRewriteResult['kind']>(kind: K, r: NodeRewriteResult): Extract<NodeRewriteResult, { kind: K }> {
  if (r.kind !== kind) throw new Error(`optimizer rewrite returned a ${r.kind} result for a ${kind} task`);
  return r as Extract<NodeRewriteResult, { kind: K }>;
}
