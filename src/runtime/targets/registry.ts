import { createHttpTarget } from './builtin/http.js';
import { logTarget } from './builtin/log.js';
import { sleepTarget } from './builtin/sleep.js';
import type { TargetDefinition, TargetMap } from './target.js';

export interface TargetRegistryOptions {
  /**
   * Let the `http` built-in call loopback, private, link-local and metadata addresses
   * (`CRONQL_HTTP_ALLOW_PRIVATE`).
   * @default false
   */
  httpAllowPrivate?: boolean;
}

/** A target as listed by the `targets` query. */
export interface TargetListing {
  name: string;
  description: string | null;
}

export const TARGET_NAME_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const MAX_TARGET_NAME_LENGTH = 200;
/** Reserved: a custom target may not take these names (a job's meaning must not depend on config). */
export const BUILTIN_TARGET_NAMES: readonly string[] = ['http', 'log', 'sleep'];

function fail(message: string): never {
  throw new TypeError(`TargetRegistry: ${message}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function toDefinition(name: string, value: unknown): TargetDefinition {
  if (name.length === 0 || name.length > MAX_TARGET_NAME_LENGTH || !TARGET_NAME_PATTERN.test(name)) {
    fail(`invalid target name ${JSON.stringify(name)}: use 1–${MAX_TARGET_NAME_LENGTH} of A-Z a-z 0-9 . _ : -`);
  }
  if (BUILTIN_TARGET_NAMES.includes(name)) fail(`target "${name}" is built in and cannot be overridden`);
  if (typeof value === 'function') return { handler: value as TargetDefinition['handler'] };
  if (typeof value === 'object' && value !== null && typeof (value as TargetDefinition).handler === 'function') {
    const { handler, description } = value as TargetDefinition;
    if (description !== undefined && typeof description !== 'string') {
      fail(`target "${name}": description must be a string`);
    }
    return { handler, description };
  }
  fail(`target "${name}" must be a function or { handler: function, description?: string }`);
}

/**
 * Checks a custom target map — names, handlers, no built-in overrides — and throws a
 * `TypeError` naming the first bad entry. The registry and the `CRONQL_TARGETS` loader share it.
 */
export function validateTargetMap(custom: unknown): asserts custom is TargetMap {
  toDefinitions(custom);
}

function toDefinitions(custom: unknown): Map<string, TargetDefinition> {
  if (!isPlainObject(custom)) fail('targets must be a plain object mapping names to handlers');
  const definitions = new Map<string, TargetDefinition>();
  for (const [name, value] of Object.entries(custom)) {
    definitions.set(name, toDefinition(name, value));
  }
  return definitions;
}

/** The targets a run may name: the built-ins plus the application's own. */
export class TargetRegistry {
  private readonly targets: ReadonlyMap<string, TargetDefinition>;

  constructor(custom: TargetMap = {}, options: TargetRegistryOptions = {}) {
    const builtins: Record<string, TargetDefinition> = {
      http: createHttpTarget({ allowPrivate: options.httpAllowPrivate ?? false }),
      log: logTarget,
      sleep: sleepTarget,
    };
    this.targets = new Map([...Object.entries(builtins), ...toDefinitions(custom)]);
  }

  has(name: string): boolean {
    return this.targets.has(name);
  }

  get(name: string): TargetDefinition | undefined {
    return this.targets.get(name);
  }

  /** Sorted by name, in code-unit order so the listing does not depend on the locale. */
  list(): TargetListing[] {
    return [...this.targets]
      .map(([name, definition]) => ({ name, description: definition.description ?? null }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

export function createTargetRegistry(
  custom: TargetMap = {},
  options: TargetRegistryOptions = {},
): TargetRegistry {
  return new TargetRegistry(custom, options);
}
