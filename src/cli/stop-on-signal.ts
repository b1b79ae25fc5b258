import type { Logger } from 'pino';

/**
 * Ends a long-running command on SIGTERM or SIGINT: logs `message`, runs `shutdown`, logs
 * "stopped" and exits 0; exits 1 when shutdown fails. Whatever hangs while stopping (a stuck
 * session, a closed log pipe), the process ends within 15 s.
 */
export function stopOnSignal(logger: Logger, message: string, shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 15_000).unref();
    try {
      logger.info({ signal }, message);
      await shutdown();
      logger.info('stopped');
      logger.flush?.();
      process.exit(0);
    } catch (err) {
      try { logger.error({ err }, 'error while stopping'); } finally { process.exit(1); }
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
