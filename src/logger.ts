import { pino, stdSerializers, type Logger } from 'pino';

export type { Logger };

/**
 * Fields of database errors that can carry the values of a statement — its text with the values
 * inlined (MikroORM prefixes its errors with it), the failing row (`detail`), the JSON being
 * parsed (`where`) — and so a payload's secrets. Logs keep the rest: what failed, where, why.
 */
const VALUE_FIELDS = ['detail', 'where', 'internalQuery', 'sql', 'sqlMessage', 'errmsg', 'query', 'parameters', 'params', 'bindings', 'hint'];

const isDatabaseError = (err: Record<string, unknown>) =>
  (typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code)) || typeof err.sqlState === 'string';

/**
 * The `err` serializer: pino's, minus statement text and values for database errors. MikroORM's
 * message is `<statement with values> - <PostgreSQL's message>`: only the latter is kept, and the
 * stack is rewritten to match.
 */
export function serializeError(err: unknown): unknown {
  if (!err || typeof err !== 'object') return err;
  const raw = err as Record<string, unknown>;
  if (!isDatabaseError(raw)) return stdSerializers.err(err as Error);
  const serialized = stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const message = typeof raw.message === 'string' ? raw.message : '';
  // "<statement> - <message>[\n - detail: <detail>]": the statement and the detail can hold values.
  const head = message.split('\n - detail:')[0];
  const safe = /^\s*(insert|update|delete|select|with|alter|create|drop)\b/i.test(head) && head.includes(' - ')
    ? head.slice(head.lastIndexOf(' - ') + 3)
    : head;
  for (const field of VALUE_FIELDS) delete serialized[field];
  serialized.message = safe;
  if (typeof serialized.stack === 'string' && message) serialized.stack = serialized.stack.split(message).join(safe);
  return serialized;
}

/** The process logger. `LOG_LEVEL` tunes it; tests default to `silent` unless LOG_LEVEL is set. */
export function createLogger(bindings: Record<string, unknown> = {}): Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  return pino({ level, base: { service: 'cronql', ...bindings }, serializers: { err: serializeError } });
}
