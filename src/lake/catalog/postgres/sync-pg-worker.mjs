// The catalog's PostgreSQL worker entry when Floe runs as TypeScript: loads sync-pg-worker.ts
// through tsx's API (src/common/worker-module.ts says why).
import { tsImport } from 'tsx/esm/api';

await tsImport('./sync-pg-worker.ts', import.meta.url);
