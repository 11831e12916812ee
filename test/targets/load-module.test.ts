import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadTargetModule } from '../../src/runtime/targets/load-module.js';
import { createTargetRegistry } from '../../src/runtime/targets/registry.js';

const fixture = resolve(fileURLToPath(import.meta.url), '../../fixtures/targets.mjs');
let dir: string;

/** Writes a throwaway module outside the repository and returns its path. */
async function moduleWith(name: string, source: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, source);
  return path;
}

async function loadError(path: string): Promise<ConfigError> {
  const err = await loadTargetModule(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).variable).toBe('CRONQL_TARGETS');
  expect((err as ConfigError).message).toMatch(/^CRONQL_TARGETS: /);
  return err as ConfigError;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cronql-targets-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadTargetModule', () => {
  it('imports the default export of an absolute path', async () => {
    const targets = await loadTargetModule(fixture);
    expect(Object.keys(targets).sort()).toEqual(['billing.close-day', 'report']);
    const registry = createTargetRegistry(targets);
    expect(registry.list()).toContainEqual({ name: 'report', description: 'Builds the daily report.' });
  });

  it('resolves a relative path against the working directory', async () => {
    const targets = await loadTargetModule(`./${relative(process.cwd(), fixture)}`);
    expect(typeof targets['billing.close-day']).toBe('function');
  });

  it('names CRONQL_TARGETS when the file does not exist', async () => {
    const err = await loadError(join(dir, 'missing.mjs'));
    expect(err.message).toContain('cannot import');
  });

  it('names CRONQL_TARGETS when the module does not load', async () => {
    await loadError(await moduleWith('broken.mjs', 'export default {'));
  });

  it('names CRONQL_TARGETS when there is no default export', async () => {
    const err = await loadError(await moduleWith('named.mjs', 'export const job = async () => 1;'));
    expect(err.message).toContain('has no default export');
  });

  it('names CRONQL_TARGETS when the default export is not a map', async () => {
    const err = await loadError(await moduleWith('fn.mjs', 'export default async () => 1;'));
    expect(err.message).toContain('must be a plain object');
  });

  it('names CRONQL_TARGETS and the entry when a target is invalid', async () => {
    const err = await loadError(await moduleWith('bad-entry.mjs', 'export default { ok: () => 1, bad: 42 };'));
    expect(err.message).toContain('target "bad" must be a function');
  });

  it('names CRONQL_TARGETS when a target overrides a built-in', async () => {
    const err = await loadError(await moduleWith('override.mjs', 'export default { http: () => 1 };'));
    expect(err.message).toContain('"http" is built in');
  });

  it('names CRONQL_TARGETS when the path is blank', async () => {
    await loadError('  ');
  });
});
