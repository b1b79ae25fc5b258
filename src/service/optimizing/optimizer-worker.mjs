// The optimizer pool's thread entry when Floe runs as TypeScript: loads optimizer-worker.ts
// as ES modules through tsx's API (src/common/worker-module.ts says why).
import { tsImport } from 'tsx/esm/api';

export const { rewriteNode } = await tsImport('./optimizer-worker.ts', import.meta.url);
