import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/**
 * How often and how patiently an S3 request is tried. The waits are "full jitter"
 * (a random time up to base·2^n, capped): many clients retrying after one outage then
 * spread out instead of arriving together.
 */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 6, baseMs: 50, capMs: 2_000 };

/** A response that arrived incomplete or corrupted (a body cut short, a digest that differs): worth another try. */
export class TransientS3Error extends Error {}

/**
 * Runs `op` until it succeeds, a non-transient error is met, or the attempts are used up.
 * What finally fails is FloeError 58030 ("could not <what>: …"), unless `op` threw a
 * FloeError itself (a missing object, say), which passes through unchanged.
 */
export async function withRetries<T>(what: string, op: () => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (e instanceof FloeError) throw e;
      if (attempt >= policy.attempts || !isTransient(e)) {
        throw new FloeError(SqlState.ioError, `could not ${what}: ${describe(e)}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`, { cause: e });
      }
      const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}

/** The HTTP status an SDK error carries, if the server answered at all. */
export function httpStatusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/**
 * Server errors, throttling, timeouts and broken connections are transient; a client
 * error (403, 404, 400 …) will answer the same next time.
 */
function isTransient(e: unknown): boolean {
  if (e instanceof TransientS3Error) return true;
  // No credentials in the environment: asking again finds none either.
  if ((e as Error).name === 'CredentialsProviderError') return false;
  const status = httpStatusOf(e);
  if (status !== undefined && status !== 0) return status >= 500 || status === 429 || status === 408;
  // No HTTP answer: the connection failed, was reset or timed out. A programming error
  // (a TypeError from the SDK, say) is not retried.
  return !(e instanceof TypeError || e instanceof RangeError);
}

function describe(e: unknown): string {
  const status = httpStatusOf(e);
  const name = (e as Error).name;
  const message = (e as Error).message ?? String(e);
  if (status !== undefined && status !== 0) return `${name} (HTTP ${status})${message && message !== name && message !== 'UnknownError' ? `: ${message}` : ''}`;
  const code = (e as NodeJS.ErrnoException).code;
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
