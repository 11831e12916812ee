import { pino, type Logger } from 'pino';

export type { Logger };

/** The process logger. `LOG_LEVEL` tunes it; tests default to `silent` unless LOG_LEVEL is set. */
export function createLogger(bindings: Record<string, unknown> = {}): Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  return pino({ level, base: { service: 'cronql', ...bindings } });
}
