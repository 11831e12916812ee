import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from '../graphql/support.js';

/**
 * What Apollo Server would otherwise decide from NODE_ENV or its own defaults is set explicitly
 * (docs/architecture.md, "The GraphQL request path"), and `npm start` loads graphql-js in its
 * production mode without changing the NODE_ENV others see.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
});
afterAll(async () => {
  await api?.close();
});

async function post(body: unknown) {
  const res = await fetch(api.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` },
    body: JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

describe('Apollo Server, configured explicitly', () => {
  it('marks every answer Cache-Control: no-store, and sends it as compact JSON', async () => {
    const answers = [
      await post({ query: '{ __typename }' }),
      await post({ query: '{ targets { name } }' }),
      await post({ query: '{ nope }' }),
      await post({ query: '{ job(id: "00000000-0000-4000-8000-000000000000") { key } }' }),
    ];
    for (const { res, text } of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(text).toBe(`${JSON.stringify(JSON.parse(text))}\n`);
    }
    expect(JSON.parse(answers[0].text)).toEqual({ data: { __typename: 'Query' } });
  });

  it('sends an answer whole, with its exact length and no ETag (nothing to revalidate: no-store)', async () => {
    const { res, text } = await post({ query: '{ targets { name description } }' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
  });

  it('keeps stack traces out of error answers', async () => {
    const { text } = await post({ query: '{ nope }' });
    expect(text).not.toMatch(/stacktrace|\bat .*\.js:\d+/);
  });
});

describe('graphql-production-mode.ts (first import of npm start)', () => {
  const run = promisify(execFile);
  const root = fileURLToPath(new URL('../..', import.meta.url));

  // Without the module (the control), graphql's development check is there to be seen.
  it.each([
    [true, undefined],
    [true, 'development'],
    [false, undefined],
  ])('first import %s: graphql in production mode, NODE_ENV left as it was (%s)', async (withModule, nodeEnv) => {
    // Compiled beside the sources, so that `graphql` resolves from the project's node_modules.
    const dir = await mkdtemp(join(root, 'test', '.tmp-production-mode-'));
    try {
      const source = await readFile(join(root, 'src', 'graphql-production-mode.ts'), 'utf8');
      await writeFile(join(dir, 'mode.mjs'), (await transform(source, { loader: 'ts', format: 'esm' })).code);
      const probe = `
        ${withModule ? `await import(${JSON.stringify(join(dir, 'mode.mjs'))});` : ''}
        const { instanceOf } = await import('graphql/jsutils/instanceOf.js');
        class A { get [Symbol.toStringTag]() { return 'A'; } }
        const fake = { [Symbol.toStringTag]: 'A' };
        let threw = false;
        try { instanceOf(fake, A); } catch { threw = true; }
        console.log(JSON.stringify({ threw, nodeEnv: process.env.NODE_ENV ?? null }));`;
      const env = { ...process.env };
      delete env.NODE_ENV;
      if (nodeEnv) env.NODE_ENV = nodeEnv;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir, env });
      // The development instanceOf throws on a look-alike of another class ("another module or realm").
      expect(JSON.parse(stdout)).toEqual({ threw: !withModule, nodeEnv: nodeEnv ?? null });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
