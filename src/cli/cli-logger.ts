import { pino } from 'pino';
import type { Logger } from 'pino';

/** Pretty logs for a person at a terminal, JSON lines for everything else (FLOE_LOG_FORMAT=json|pretty overrides). */
export function createLogger(): Logger {
  const format = process.env.FLOE_LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const level = process.env.FLOE_LOG_LEVEL ?? 'info';
  if (format === 'pretty') return pino({ level, transport: { target: 'pino-pretty', options: { colorize: true } } });
  return pino({ level });
}
