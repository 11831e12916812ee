import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { unsupportedNodeLine } from '../../src/node-support.js';
import { useProcessTest } from './support.js';

/**
 * `npm start` on a Node outside package.json's engines says so in one line and starts anyway; on a
 * supported Node it says nothing about it. The suite runs on the machine's Node (20 here: the
 * line appears) and in CI on 22 and 24 (it does not).
 */
describe('npm start and the Node it runs on', () => {
  const t = useProcessTest();

  it(`on this Node (${process.version}): one line on stderr if it is unsupported, none otherwise, and cronql listens either way`, async () => {
    const p = await t.spawn({ databaseUrl: t.url });
    expect((await p.get('/healthz')).status).toBe(200);
    const said = p.logs.filter((l) => /^cronql: Node .* is not supported/.test(l.line)).map((l) => l.line);
    const expected = unsupportedNodeLine(process.version);
    expect(said).toEqual(expected ? [expected] : []);
    if (expected) expect(expected).toMatch(new RegExp(`^cronql: Node ${process.versions.node.replaceAll('.', '\\.')} is not supported; use Node \\d+`));
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });
});

describe('the unsupported-Node line', () => {
  it('goes to stderr, before anything else, and stdout stays free of it (a start refused for its configuration shows both streams)', async () => {
    const failed = await promisify(execFile)(process.execPath, [inject('cronqlMain')], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CRONQL_ROLE: 'nonsense' },
    }).then(
      () => null,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failed?.code).toBe(2);
    const expected = unsupportedNodeLine(process.version);
    expect(failed!.stderr.split('\n').filter(Boolean)).toEqual([...(expected ? [expected] : []), 'cronql: invalid configuration: CRONQL_ROLE: must be one of all, api, scheduler, got "nonsense"']);
    expect(failed!.stdout).toBe('');
  });
});
