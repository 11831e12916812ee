import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../errors.js';
import { validateTargetMap } from './registry.js';
import type { TargetMap } from './target.js';

/**
 * Imports the `CRONQL_TARGETS` module and returns its default export, checked as a target map.
 * Relative paths resolve against the working directory, as a user typing the variable expects.
 * Every failure is a `ConfigError` naming `CRONQL_TARGETS`, so startup stops with one clear line.
 */
export async function loadTargetModule(path: string): Promise<TargetMap> {
  if (path.trim() === '') throw new ConfigError('CRONQL_TARGETS', 'is set but empty');
  const absolute = resolve(process.cwd(), path);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
  } catch (err) {
    throw new ConfigError('CRONQL_TARGETS', `cannot import ${absolute}: ${(err as Error).message}`);
  }
  if (mod.default === undefined) {
    throw new ConfigError('CRONQL_TARGETS', `${absolute} has no default export (expected { name: handler, … })`);
  }
  try {
    validateTargetMap(mod.default);
  } catch (err) {
    throw new ConfigError('CRONQL_TARGETS', `${absolute}: ${(err as Error).message}`);
  }
  return mod.default;
}
