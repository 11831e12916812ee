import { chmod, mkdtemp, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCronql, type CronqlProcess } from '../support/processes.js';

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('skipping "npm start as root from a 0700 directory": the tests do not run as root');

/** `npm start` with no DATABASE_URL, as root, with everything under a private (0700) directory. */
describe.runIf(asRoot)('the embedded database as root in a private directory', () => {
  const procs: CronqlProcess[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('starts, answers, stops cleanly, and starts again on the same data', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cronql-root-home-'));
    dirs.push(home);
    await chmod(home, 0o700);
    const dataDir = join(home, '.cronql');
    const first = await spawnCronql({ dataDir, startTimeoutMs: 60_000 });
    procs.push(first);
    expect((await first.get('/readyz')).status).toBe(200);
    const created = await first.graphql<{ createJob: { id: string } }>(
      'mutation { createJob(input: { key: "kept", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *" }) { id } }',
    );
    expect(created.data?.createJob.id).toBeTruthy();
    first.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const cluster = await readlink(join(dataDir, 'pg'));
    dirs.push(cluster);

    const second = await spawnCronql({ dataDir, startTimeoutMs: 60_000 });
    procs.push(second);
    const jobs = await second.graphql<{ jobs: { nodes: { key: string }[] } }>('{ jobs { nodes { key } } }');
    expect(jobs.data?.jobs.nodes).toEqual([{ key: 'kept' }]);
    expect(second.logs.some((l) => /kept here, linked from|kept outside the data directory/.test(l.line))).toBe(true);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);
});
