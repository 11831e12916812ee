import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, loadCodegenConfig } from '@graphql-codegen/cli';
import { expect, test } from 'vitest';

/**
 * src/client/generated, src/client/operations/generated and src/dashboard/app/generated are what
 * `npm run codegen` makes of schema/schema.graphql and the operations (src/client/*.graphql,
 * src/client/operations/operations.graphql, src/dashboard/app/*.graphql) today: generated in
 * memory from codegen.yml and compared file by file. The operations of `cronql/client` are
 * themselves generated from the schema (scripts/generate-client-operations.mjs): checked first.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

test('src/client/operations/operations.graphql matches a fresh generation from the schema (run `npm run codegen`)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [resolve(root, 'scripts/generate-client-operations.mjs'), '--check'], { cwd: root });
  expect(stdout).toMatch(/up to date/);
}, 30_000);

test('src/client/generated, src/client/operations/generated and src/dashboard/app/generated match a fresh generation (run `npm run codegen`)', async () => {
  const { config } = await loadCodegenConfig({ configFilePath: resolve(root, 'codegen.yml') });
  const files = await generate({ ...config, cwd: root, silent: true, verbose: false }, false);
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const path = resolve(root, file.filename);
    expect(relative(root, path)).toMatch(/^src\/(client|client\/operations|dashboard\/app)\/generated\//);
    const committed = await readFile(path, 'utf8').catch(() => '(missing)');
    expect(committed, `${relative(root, path)} is stale`).toBe(file.content);
  }
}, 30_000);
