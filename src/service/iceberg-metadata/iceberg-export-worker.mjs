// The Iceberg export pool's thread entry when Floe runs as TypeScript: loads
// iceberg-export-worker.ts as ES modules through tsx's API (src/common/worker-module.ts says why).
import { tsImport } from 'tsx/esm/api';

export const { writeChangeStore } = await tsImport('./iceberg-export-worker.ts', import.meta.url);
