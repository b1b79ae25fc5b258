// The scan pool's thread entry when Floe runs as TypeScript: loads scan-worker.ts as ES
// modules through tsx's API (src/common/worker-module.ts says why).
import { tsImport } from 'tsx/esm/api';

export const { runScanTask } = await tsImport('./scan-worker.ts', import.meta.url);
