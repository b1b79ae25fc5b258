/** src/http's public API: the management server `floe serve` composes. */
export { startHttpServer, type HttpLogger, type HttpServer, type HttpServerOptions } from './http-server.js';
export { HTTP_AUTH_MODES, authenticateRequest, type AuthPolicy, type HttpAuthMode, type Principal } from './request-principal.js';
export type { ConnectedSession, HttpCredentials, ServerGauges, SessionDirectory } from './management-sources.js';
export { FloeMetrics } from './metrics/floe-metrics.js';
export { STATEMENT_KINDS, sqlstateClass, statementKind } from './metrics/statement-kind.js';
export { isoOfMicros } from './json-values.js';
