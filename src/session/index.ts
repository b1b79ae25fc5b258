/** src/session: the engine side of a client connection (implements src/wire's SessionHandler). */
export { createFloeSession } from './floe-session.js';
export type { SessionDeps } from './floe-session.js';
export { formatCopyRow, parseCopyText } from './copy-format.js';
export { DEFAULT_QUERY_MEMORY_LIMIT, QUERY_MEMORY_LIMIT, SERVER_VERSION, SERVER_VERSION_NUM, checkSetting, parseMemorySetting } from './settings-registry.js';
export { sweepDeadSessionDirectories } from './temp-directory.js';
export { SessionRegistry } from './session-registry.js';
export { StatementStatistics, processStatementStatistics } from './statement-statistics.js';
