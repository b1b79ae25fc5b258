import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isFloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { Warehouse } from '../lake/index.js';
import type { OptimizingService } from '../service/index.js';
import { problemOf, type HttpProblem } from './http-problem.js';
import type { SessionDirectory } from './management-sources.js';
import type { FloeMetrics } from './metrics/floe-metrics.js';
import { RateSampler } from './metrics/rate-sampler.js';
import { buildDashboard, type DashboardBundle } from './dashboard-bundle.js';
import { LoginSessions, SESSION_COOKIE, cookieValue } from './login-sessions.js';
import { BASIC_CHALLENGE, DASHBOARD_CHALLENGE, authenticateRequest, type AuthPolicy } from './request-principal.js';
import { registerDashboardRoutes } from './routes/dashboard-routes.js';
import { arrivedOverTls, registerLoginRoutes } from './routes/login-routes.js';
import { registerRatesRoute } from './routes/rates-route.js';
import { registerHealthRoutes, type Readiness } from './routes/health-routes.js';
import { registerMetricsRoute } from './routes/metrics-route.js';
import { registerOptimizingRoutes } from './routes/optimizing-routes.js';
import { setPrincipal } from './routes/principal-of.js';
import type { RouteContext } from './routes/route-context.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { registerTableRoutes } from './routes/table-routes.js';
import { registerIcebergRestRoutes } from './routes/iceberg-rest-routes.js';
import { IcebergRestError, icebergErrorOf } from './iceberg-rest-error.js';

/** What `pino` loggers give, as far as the server uses it. */
export interface HttpLogger {
  error(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM certificate and key: the server speaks HTTPS (the wire's certificate). */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer };
  readonly auth: AuthPolicy;
  readonly warehouse: Warehouse;
  readonly optimizing: OptimizingService;
  readonly sessions: SessionDirectory;
  readonly metrics: FloeMetrics;
  readonly logger?: HttpLogger;
  /** How often the rate charts' totals are sampled (an hour of samples is kept); 10 s by default. */
  readonly rateSampleSeconds?: number;
}

export interface HttpServer {
  readonly port: number;
  readonly secure: boolean;
  /** /readyz answers 200 from now on: the warehouse is open and the wire listens. */
  markReady(): void;
  close(): Promise<void>;
}

/**
 * The management server of `floe serve`: probes, Prometheus /metrics, the JSON API under
 * /api/v1 and the read-only Iceberg REST catalog under /iceberg, on fastify. Everything but
 * the probes needs a principal (request-principal.ts); the API's errors are JSON with a
 * SQLSTATE (http-problem.ts), the catalog's the Iceberg spec's (iceberg-rest-error.ts).
 */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  // No fastify logger: requests are not logged (disableRequestLogging, which said so too, is deprecated).
  const base = { logger: false } as const;
  // One type for both: the routes do not care which transport carries them.
  const app = (opts.tls === undefined ? Fastify(base) : Fastify({ ...base, https: { cert: opts.tls.cert, key: opts.tls.key } })) as unknown as FastifyInstance;
  let readiness: Readiness = 'starting';
  app.setErrorHandler((error: FastifyError, request, reply) => sendProblem(request, reply, problemOfRequestError(error, request, opts.logger)));
  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, {
    status: 404, body: { error: { sqlstate: SqlState.undefinedObject, message: `no endpoint ${request.method} ${request.url.split('?')[0]}` } },
  }));
  registerHealthRoutes(app, () => readiness);
  // Bundled at the first page request, not at start: most gateways (every test's) are never
  // asked for the page, and esbuild takes a few hundred milliseconds. A failed build is a
  // 500, logged, and is tried again at the next request.
  let dashboard: Promise<DashboardBundle> | undefined;
  registerDashboardRoutes(app, () => (dashboard ??= buildDashboard().catch((err: unknown) => {
    opts.logger?.error({ err }, 'dashboard bundle failed to build');
    dashboard = undefined;
    throw err;
  })));
  const logins = new LoginSessions();
  registerLoginRoutes(app, logins, opts.auth);
  const rateSampleSeconds = opts.rateSampleSeconds ?? 10;
  const rates = new RateSampler({ totals: () => opts.metrics.totals(), intervalMs: rateSampleSeconds * 1000, windowMs: 60 * 60 * 1000 });
  rates.start();
  const ctx: RouteContext = {
    warehouse: opts.warehouse, optimizing: opts.optimizing, sessions: opts.sessions, metrics: opts.metrics, rates, rateIntervalSeconds: rateSampleSeconds,
  };
  // Every route but the probes, the dashboard's files and the login acts as a principal.
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const sessionId = cookieValue(request.headers.cookie, SESSION_COOKIE);
    setPrincipal(request, authenticateRequest({
      remoteAddress: request.socket.remoteAddress ?? '',
      secure: arrivedOverTls(request),
      authorization: request.headers.authorization,
      sessionUser: sessionId === undefined ? undefined : logins.userOf(sessionId),
    }, opts.auth));
  };
  // The read-only Iceberg REST catalog: it hands out the metadata any gateway of the warehouse wrote.
  await app.register(async (scope) => {
    // The Iceberg REST spec's error bodies, for its clients, in place of the API's.
    scope.setErrorHandler((error: FastifyError, request, reply) => sendIcebergError(request, reply, icebergErrorOf(error, error.statusCode), opts.logger, error));
    scope.setNotFoundHandler((request, reply) => sendIcebergError(request, reply, icebergErrorOf(
      new IcebergRestError(400, 'BadRequestException', `No route for request: ${request.method} ${request.url.split('?')[0]}`),
    )));
    scope.addHook('onRequest', authenticate);
    registerIcebergRestRoutes(scope, opts.warehouse);
  }, { prefix: '/iceberg' });
  await app.register(async (scope) => {
    scope.addHook('onRequest', authenticate);
    registerMetricsRoute(scope, ctx);
    registerRatesRoute(scope, ctx);
    registerTableRoutes(scope, ctx);
    registerOptimizingRoutes(scope, ctx);
    registerSessionRoutes(scope, ctx);
  });
  await app.listen({ host: opts.host, port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  opts.logger?.info({ host: opts.host, port, tls: opts.tls !== undefined, auth: opts.auth.mode }, 'http server listening');
  return {
    port,
    secure: opts.tls !== undefined,
    markReady() {
      readiness = 'ready';
    },
    async close() {
      readiness = 'stopping';
      rates.stop();
      await app.close();
    },
  };
}

function sendIcebergError(request: FastifyRequest, reply: FastifyReply, e: ReturnType<typeof icebergErrorOf>, logger?: HttpLogger, cause?: unknown): FastifyReply {
  if (e.status >= 500) logger?.error({ err: cause, method: request.method, url: request.url }, 'iceberg catalog request failed');
  if (e.status === 401) void reply.header('WWW-Authenticate', BASIC_CHALLENGE);
  return reply.code(e.status).type('application/json; charset=utf-8').send(e.body);
}

function sendProblem(request: FastifyRequest, reply: FastifyReply, p: HttpProblem): FastifyReply {
  // RFC 9110: a 401 names how to authenticate. The dashboard's own requests are told to use its
  // login form: a Basic challenge would make the browser pop up its password dialog over the page.
  if (p.status === 401) void reply.header('WWW-Authenticate', request.headers['x-floe-dashboard'] === undefined ? BASIC_CHALLENGE : DASHBOARD_CHALLENGE);
  return reply.code(p.status).type('application/json; charset=utf-8').send(p.body);
}

/** A FloeError keeps its SQLSTATE; fastify's own 4xx (bad JSON, failed schema) are 22023; anything else is logged and 500. */
function problemOfRequestError(error: FastifyError, request: FastifyRequest, logger: HttpLogger | undefined): HttpProblem {
  if (!isFloeError(error) && typeof error.statusCode === 'number' && error.statusCode < 500) {
    return { status: error.statusCode, body: { error: { sqlstate: SqlState.invalidParameterValue, message: error.message } } };
  }
  const p = problemOf(error);
  if (p.status >= 500) logger?.error({ err: error, method: request.method, url: request.url }, 'http request failed');
  return p;
}
