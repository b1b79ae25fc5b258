// The tiering pool's thread entry when Floe runs as TypeScript: loads tiering-worker.ts as
// ES modules through tsx's API (src/common/worker-module.ts says why).
import { tsImport } from 'tsx/esm/api';

export const { rewriteChangeGroup } = await tsImport('./tiering-worker.ts', import.meta.url);
