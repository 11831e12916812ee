import { describe, expect, it } from 'vitest';
import { spawnCronql } from '../support/processes.js';
import { useProcessTest } from './support.js';

/** A start that fails says why in one line, and exits. */
describe('a start that fails', () => {
  it('with an unreachable DATABASE_URL: exits 1 with one line naming the cause, no stack trace', async () => {
    const started = spawnCronql({ databaseUrl: 'postgresql://cronql:x@127.0.0.1:9/cronql', env: { CRONQL_DB_CONNECT_TIMEOUT_MS: '1000' } });
    const err = await started.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/cronql exited \(1\) before listening/);
    const lines = err!.message.split('\n').filter((l) => l.startsWith('cronql: could not start:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ECONNREFUSED|connect/i);
    expect(err!.message).not.toMatch(/^\s+at /m);
  }, 30_000);
});

describe('a start with secrets stored', () => {
  const t = useProcessTest();
  const KEY_A = Buffer.alloc(32, 7).toString('base64');
  const KEY_B = Buffer.alloc(32, 9).toString('hex');

  it('and another key: exits 1 with one line naming CRONQL_SECRETS_KEY; a malformed key is a configuration error; the right key starts', async () => {
    const first = await t.spawn({ databaseUrl: t.url, env: { CRONQL_SECRETS_KEY: KEY_A } });
    const set = await first.graphql(`mutation { setSecret(name: "TOKEN", value: "a-value-to-keep") { name } }`);
    expect(set.errors).toBeUndefined();
    first.kill('SIGTERM');
    await first.exited;

    const wrong = await spawnCronql({ databaseUrl: t.url, env: { CRONQL_SECRETS_KEY: KEY_B } }).then(() => null, (e: Error) => e);
    expect(wrong?.message).toMatch(/cronql exited \(1\) before listening/);
    const lines = wrong!.message.split('\n').filter((l) => l.startsWith('cronql: could not start:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/CRONQL_SECRETS_KEY: this key does not decrypt the secrets stored in this database/);
    expect(wrong!.message).not.toMatch(/^\s+at /m);

    // No key at all (a fresh data dir, nothing generated yet): refused too, saying so.
    const none = await spawnCronql({ databaseUrl: t.url }).then(() => null, (e: Error) => e);
    expect(none?.message).toMatch(/CRONQL_SECRETS_KEY: secrets are stored in this database, but no key is set/);

    const malformed = await spawnCronql({ databaseUrl: t.url, env: { CRONQL_SECRETS_KEY: 'not-a-key' } }).then(() => null, (e: Error) => e);
    expect(malformed?.message).toMatch(/cronql exited \(2\) before listening/);
    expect(malformed?.message).toMatch(/cronql: invalid configuration: CRONQL_SECRETS_KEY: must be a 32-byte key/);

    const again = await t.spawn({ databaseUrl: t.url, env: { CRONQL_SECRETS_KEY: KEY_A } });
    const listed = await again.graphql<{ secrets: { name: string }[] }>(`{ secrets { name } }`);
    expect(listed.data!.secrets.map((s) => s.name)).toEqual(['TOKEN']);
  }, 60_000);
});

describe('a start that succeeds', () => {
  const t = useProcessTest();

  it('says where its time went: every step, in order, adding up to the total; the API prepared meanwhile', async () => {
    const p = await t.spawn({ databaseUrl: t.url });
    const listening = JSON.parse(await p.waitForLog(/"msg":"cronql is listening"/)) as { startup: Record<string, number> };
    const startup = listening.startup;
    const steps = ['processStart', 'imports', 'config', 'beforeStart', 'migrations', 'listenAndSecrets', 'services', 'recovery', 'jobsRead', 'arming', 'markArmed', 'http'];
    expect(Object.keys(startup)).toEqual([...steps, 'api', 'total', 'cpu']);
    for (const value of Object.values(startup)) expect(value).toBeGreaterThanOrEqual(0);
    // Each step rounded to the ms on its own: the sum may be off by a few.
    const sum = steps.reduce((s, step) => s + startup[step], 0);
    expect(Math.abs(sum - startup.total)).toBeLessThanOrEqual(steps.length);
    // The API (its modules, schema and Apollo) was prepared from the end of the recovery on, in
    // step with the jobs read and armed, and done by the time the server listened.
    expect(startup.api).toBeGreaterThan(0);
    expect(startup.api).toBeLessThanOrEqual(startup.jobsRead + startup.arming + startup.markArmed + startup.http + 4);
    expect(startup.cpu).toBeGreaterThan(0);
    // And it answers.
    const res = await p.graphql<{ jobs: { totalCount: number } }>('{ jobs { totalCount } }');
    expect(res.errors).toBeUndefined();
  }, 60_000);
});
