import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, loadCodegenConfig } from '@graphql-codegen/cli';
import { expect, test } from 'vitest';

/**
 * src/client/generated and src/dashboard/app/generated are what `npm run codegen` makes of
 * schema/schema.graphql and the operations (src/client/*.graphql, src/dashboard/app/*.graphql)
 * today: generated in memory from codegen.yml and compared file by file.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

test('src/client/generated and src/dashboard/app/generated match a fresh generation (run `npm run codegen`)', async () => {
  const { config } = await loadCodegenConfig({ configFilePath: resolve(root, 'codegen.yml') });
  const files = await generate({ ...config, cwd: root, silent: true, verbose: false }, false);
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const path = resolve(root, file.filename);
    expect(relative(root, path)).toMatch(/^src\/(client|dashboard\/app)\/generated\//);
    const committed = await readFile(path, 'utf8').catch(() => '(missing)');
    expect(committed, `${relative(root, path)} is stale`).toBe(file.content);
  }
}, 30_000);
