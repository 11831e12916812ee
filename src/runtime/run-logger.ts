import { format } from 'node:util';
import type { Logger } from '../logger.js';
import type { RunLogHandle } from './run-log-writer.js';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/**
 * A handler's logger that also keeps each line with its run (docs/run-logs.md): every call still
 * goes to the process log as before, and its level, message and fields go to the run's log —
 * whatever the process's LOG_LEVEL, as the run's log is the handler's own. Child loggers keep
 * their bindings as fields. It sits inside the secret-redacting logger, so what it keeps has
 * every secret's value replaced already.
 */
export function capturingLogger(log: Logger, run: RunLogHandle, bindings: Record<string, unknown> = {}): Logger {
  return new Proxy(log, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      if (LEVELS.has(prop)) {
        return (...args: unknown[]) => {
          run.write(prop, () => asLine(bindings, args));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      if (prop === 'child') {
        return (childBindings: Record<string, unknown>, options?: unknown) =>
          capturingLogger((value as (b: unknown, o?: unknown) => Logger).call(target, childBindings, options), run, { ...bindings, ...childBindings });
      }
      return value;
    },
  });
}

/**
 * A pino call as a line: `(obj, msg?, ...args)`, `(err, msg?)` or `(msg, ...args)`, with `%s`
 * interpolation as pino does it. An error alone is its message, with the error under `err`.
 */
export function asLine(bindings: Record<string, unknown>, args: unknown[]): { message: string; fields: unknown } {
  const [first, ...rest] = args;
  let own: unknown;
  let message: string;
  if (first instanceof Error) {
    own = { err: first };
    message = rest.length > 0 ? format(...rest) : first.message;
  } else if (typeof first === 'object' && first !== null) {
    own = first;
    const msg = (first as { msg?: unknown }).msg;
    message = rest.length > 0 ? format(...rest) : typeof msg === 'string' ? msg : '';
  } else {
    message = args.length > 0 ? format(...args) : '';
  }
  const hasBindings = Object.keys(bindings).length > 0;
  const fields = !hasBindings ? own : own === undefined || Array.isArray(own) ? (own === undefined ? bindings : { ...bindings, value: own }) : { ...bindings, ...(own as object) };
  return { message, fields };
}
