import type { Warehouse } from '../../lake/index.js';
import type { OptimizingService } from '../../service/index.js';
import type { SessionDirectory } from '../management-sources.js';
import type { FloeMetrics } from '../metrics/floe-metrics.js';
import type { RateSampler } from '../metrics/rate-sampler.js';

/** What the routes read and act on: the same lake and service objects the SQL side uses. */
export interface RouteContext {
  readonly warehouse: Warehouse;
  readonly optimizing: OptimizingService;
  readonly sessions: SessionDirectory;
  readonly metrics: FloeMetrics;
  readonly rates: RateSampler;
  readonly rateIntervalSeconds: number;
}
