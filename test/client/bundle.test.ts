import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { expect, test } from 'vitest';

/**
 * `cronql/client` bundles for a browser (esbuild, platform browser) from src/client/index.ts:
 * nothing of the server (no MikroORM, pg, express, Apollo), not even the `graphql` library — the
 * documents are strings and graphql-ws's client is the only dependency it carries. The bound on
 * the size is generous (about 3× what it is: 25 KiB, 7 KiB gzip); it catches a server module or a GraphQL library
 * pulled in by mistake, not a few bytes.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

test('src/client/index.ts bundles for the browser with graphql-ws only, and stays small', async () => {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/client/index.ts'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['chrome111', 'firefox113', 'safari16.4'],
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  const inputs = Object.keys(result.metafile.inputs);
  const packages = new Set(inputs.filter((i) => i.includes('node_modules/')).map((i) => i.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')));
  expect([...packages]).toEqual(['graphql-ws']);
  expect(inputs.filter((i) => !i.includes('node_modules/')).every((i) => i.startsWith('src/client/'))).toBe(true);

  const js = result.outputFiles[0].text;
  const gzip = gzipSync(js, { level: 9 }).length;
  console.log(`cronql/client browser bundle: ${(js.length / 1024).toFixed(1)} KiB minified, ${(gzip / 1024).toFixed(1)} KiB gzip`);
  expect(js.length).toBeLessThan(75 * 1024);
  expect(gzip).toBeLessThan(20 * 1024);
}, 60_000);
