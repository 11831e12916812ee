import type { Logger } from '../logger.js';
import { redactSecrets } from './references.js';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/**
 * A handler's logger that cannot write a secret's value: every argument of every log call (the
 * message, the fields, an error's message and stack) has each value replaced by `[secret:NAME]`,
 * and its children are wrapped the same way.
 */
export function redactingLogger(log: Logger, secrets: ReadonlyMap<string, string>): Logger {
  return new Proxy(log, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      if (LEVELS.has(prop)) return (...args: unknown[]) => (value as (...a: unknown[]) => void).apply(target, args.map((a) => redactSecrets(a, secrets)));
      if (prop === 'child') {
        return (bindings: Record<string, unknown>, options?: unknown) =>
          redactingLogger((value as (b: unknown, o?: unknown) => Logger).call(target, redactSecrets(bindings, secrets), options), secrets);
      }
      return value;
    },
  });
}
