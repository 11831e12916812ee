import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { stringify as toYaml } from 'yaml';
import { JobsDocument } from '../../src/client/generated/graphql.js';
import { MAX_CAPTURE_BYTES } from '../../src/domain/job.js';
import { MAX_CATCH_UP_LIMIT } from '../../src/runtime/missed-slots.js';
import { MAX_MAX_RUNS, MAX_MISFIRE_GRACE_SECONDS } from '../../src/domain/job-fields.js';
import {
  MAX_ATTEMPTS, MAX_CONCURRENT_RUNS, MAX_JITTER_SECONDS, MAX_PAUSE_AFTER_FAILURES, MAX_RETRY_DELAY_SECONDS, MAX_TIMEOUT_SECONDS,
} from '../../src/services/job-rules.js';
import { ok, startApi, type Api } from '../graphql/support.js';
import { eventually } from '../support/cronql.js';

/** The `cronql` CLI, as a process, against a started server: each command once, --json parsed. */
// Each test runs the CLI as a process tens of times: on a busy machine a start costs seconds (a safety net, not a goal).
describe('the cronql CLI', { timeout: 180_000 }, () => {
  let api: Api;
  let dir: string;
  const cli = join(dirname(inject('cronqlMain')), 'cli', 'cronql.js');
  const run = async (args: string[], token?: string) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], {
        env: { PATH: process.env.PATH, CRONQL_URL: api.url.replace(/\/graphql$/, ''), CRONQL_TOKEN: token ?? api.adminToken },
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const runJson = async (args: string[]) => {
    const res = await run(['--json', ...args]);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  };
  beforeAll(async () => {
    api = await startApi({ instanceId: 'cli' });
    dir = await mkdtemp(join(tmpdir(), 'cronql-cli-'));
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('targets, preview, and the job and run commands', async () => {
    expect((await runJson(['targets'])).map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['http', 'log', 'sleep']));
    const preview = await runJson(['preview', '30 2 * * *', '--tz', 'America/New_York', '--count', '2']);
    expect(preview.next).toHaveLength(2);
    expect(preview.description).toMatch(/^At 02:30 \(America\/New_York time\); on the day the clocks spring forward/);
    expect(await runJson(['parse', 'every weekday at 9am in Europe/Berlin'])).toMatchObject({ cronExpression: '0 9 * * 1-5', timezone: 'Europe/Berlin' });
    expect((await run(['preview', '0 9 * * 1-5'])).stdout.split('\n')[0]).toBe('At 09:00, Monday through Friday');
    const job = await runJson(['jobs', 'create', '--key', 'cli.hello', '--target', 'log', '--cron', '0 3 * * *', '--payload', '{"message":"hi"}']);
    expect(job).toMatchObject({ key: 'cli.hello', status: 'ACTIVE', payload: { message: 'hi' } });
    expect((await runJson(['jobs', 'list'])).map((j: { key: string }) => j.key)).toContain('cli.hello');
    expect(await runJson(['jobs', 'get', job.id])).toMatchObject({ id: job.id });
    expect(await runJson(['jobs', 'pause', job.id, '--reason', 'maintenance'])).toMatchObject({ status: 'PAUSED', pauseReason: 'maintenance' });
    expect(await runJson(['jobs', 'resume', job.id])).toMatchObject({ status: 'ACTIVE' });
    const ran = await runJson(['jobs', 'run', job.id]);
    const tail = run(['--json', 'runs', 'tail', '--job', job.id, '--count', '1']);
    let tailed = false;
    void tail.then(() => (tailed = true));
    // Once the tail has subscribed, a run's change reaches it: run the job until one has.
    await eventually(() => (api.http.subscriptions?.channelCount ?? 0) > 0 || tailed, 20_000);
    await eventually(async () => tailed || (await run(['jobs', 'run', job.id]), tailed), 30_000);
    expect((await tail).code).toBe(0);
    expect((await runJson(['runs', 'list', '--job', job.id])).map((r: { id: string }) => r.id)).toContain(ran.id);
    expect(await runJson(['runs', 'get', ran.id])).toMatchObject({ id: ran.id });
    // The run's log (the `log` target's line), read, and followed: an ended run's stream ends at once.
    await eventually(async () => (await api.cronql.runs.get(ran.id))?.status === 'SUCCEEDED');
    const logs = await run(['--json', 'runs', 'logs', ran.id]);
    expect(logs.stdout.trim().split('\n').map((l) => JSON.parse(l))).toMatchObject([{ sequence: 1, level: 'info', message: 'hi' }]);
    const followed = await run(['runs', 'logs', ran.id, '--follow']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^\S+ {2}INFO {3}hi$/)]);
    const sleeper = await runJson(['jobs', 'create', '--key', 'cli.sleep', '--target', 'sleep', '--cron', '0 3 * * *']);
    const long = await runJson(['jobs', 'run', sleeper.id, '--payload', '{"ms":60000}']);
    await eventually(async () => (await api.cronql.runs.get(long.id))?.status === 'RUNNING');
    expect(await runJson(['runs', 'cancel', long.id])).toMatchObject({ status: 'CANCELED' });
    expect((await runJson(['jobs', 'versions', 'cli.hello'])).map((j: { version: number }) => j.version)).toEqual([1]);
    expect(await runJson(['jobs', 'retire', sleeper.id])).toMatchObject({ status: 'RETIRED' });
    // People get a table.
    const table = await run(['jobs', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+KEY\s+V\s+STATUS/);
  });

  it('labels: jobs create --label, list -l, pause -l and resume -l (one call each), and labels in a jobs file round-trip', async () => {
    const made = await runJson(['jobs', 'create', '--key', 'cli.labelled', '--target', 'log', '--cron', '0 3 * * *', '--label', 'team=cli', 'env=prod', '--owner', 'cli-team']);
    expect(made).toMatchObject({ labels: { team: 'cli', env: 'prod' }, owner: 'cli-team' });
    expect((await run(['jobs', 'create', '--key', 'cli.bad', '--target', 'log', '--cron', '0 3 * * *', '--label', 'Team=x'])).stderr).toMatch(/INVALID_LABELS/);
    expect((await runJson(['jobs', 'list', '-l', 'team=cli'])).map((j: { key: string }) => j.key)).toEqual(['cli.labelled']);
    expect((await run(['jobs', 'list', '-l', 'team in ('])).stderr).toMatch(/INVALID_SELECTOR/);
    expect(await runJson(['jobs', 'pause', '-l', 'team=cli,env', '--reason', 'window', '--until', '+2h'])).toEqual({ paused: 1 });
    expect(await runJson(['jobs', 'get', made.id])).toMatchObject({ status: 'PAUSED', pauseReason: 'window' });
    expect((await run(['jobs', 'pause', made.id, '-l', 'team=cli', '--reason', 'x'])).stderr).toMatch(/not both/);
    expect(await runJson(['jobs', 'resume', '-l', 'team=cli'])).toEqual({ resumed: 1 });
    expect((await run(['jobs', 'list', '-l', 'team=cli'])).stdout).toMatch(/env=prod,team=cli|team=cli,env=prod/);

    const file = join(dir, 'labels.yaml');
    await writeFile(file, `namespace: teams
jobs:
  - key: teams.report
    target: log
    cron: "0 4 * * *"
    labels: { team: reports, tier: gold }
    description: The nightly report
    owner: reports@example.com
`);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['create']);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('tier: gold', 'tier: silver'));
    expect((await runJson(['apply', file, '--dry-run'])).plan).toEqual([{ action: 'version', key: 'teams.report', fields: ['labels'] }]);
    await runJson(['apply', file]);
    const exported = join(dir, 'labels-export.yaml');
    await run(['export', '--namespace', 'teams', '--out', exported]);
    expect(parseYaml(await readFile(exported, 'utf8')).jobs[0]).toMatchObject({
      labels: { team: 'reports', tier: 'silver' }, description: 'The nightly report', owner: 'reports@example.com',
    });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
  });

  it('backfill: --dry-run prints the plan and writes nothing; without it the slots run; a range too large is BACKFILL_TOO_LARGE', async () => {
    await runJson(['jobs', 'create', '--key', 'cli.backfill', '--target', 'log', '--cron', '0 * * * *']);
    const range = ['--from', '2026-10-01T00:00:00Z', '--to', '2026-10-01T05:30:00Z'];
    const plan = await run(['backfill', 'cli.backfill', ...range, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n').slice(0, 3)).toEqual(['would run 6 slot(s) of cli.backfill (NOT_SUCCEEDED); 0 left out', '  2026-10-01T00:00:00.000Z', '  2026-10-01T01:00:00.000Z']);
    // The plan's table has no id column: a dry run's plan is never stored, so an id would name nothing.
    expect(plan.stdout).toMatch(/^JOB +STATE +SCOPE +SLOTS/m);
    expect((await api.cronql.pool.query('SELECT count(*)::int AS n FROM cron_backfills')).rows[0].n).toBe(0);
    const real = await runJson(['backfill', 'cli.backfill', ...range, '--scope', 'ALL', '--reason', 'from the CLI test']);
    expect(real).toMatchObject({ scope: 'ALL', reason: 'from the CLI test', job: { key: 'cli.backfill' } });
    expect(real.slots).toHaveLength(6);
    await eventually(async () => (await api.cronql.backfills.get(real.id))?.state === 'DONE', 20_000);
    const large = await run(['backfill', 'cli.backfill', '--from', '2020-01-01T00:00:00Z', '--to', '2026-01-01T00:00:00Z', '--dry-run']);
    expect(large.code).toBe(1);
    expect(large.stderr.trim()).toMatch(/^error BACKFILL_TOO_LARGE: /);
  });

  it('upcoming ("what runs tonight"), jobs skip and jobs pause --until: the timeline leaves out the skipped slots, the paused span and a calendar\'s', async () => {
    const hour = 3_600_000;
    const now = Date.now();
    // Every hour at half an hour from now's minute: no slot comes due while the test runs.
    const minute = (new Date(now).getUTCMinutes() + 30) % 60;
    const cron = `${minute} * * * *`;
    const first = new Date(now);
    first.setUTCMinutes(minute, 0, 0);
    if (first.getTime() <= now) first.setTime(first.getTime() + hour);
    const slot = (k: number) => new Date(first.getTime() + k * hour).toISOString();
    const to = slot(5); // six slots: 0 to 5
    const timeline = async (key: string) =>
      (await runJson(['upcoming', '--to', to, '--key-contains', key])).map((s: { slot: string; job: { key: string } }) => `${s.slot} ${s.job.key}`);

    const skipped = await runJson(['jobs', 'create', '--key', 'cli.tonight.skip', '--target', 'log', '--cron', cron]);
    expect(await timeline('cli.tonight.skip')).toEqual([0, 1, 2, 3, 4, 5].map((k) => `${slot(k)} cli.tonight.skip`));
    expect(await runJson(['jobs', 'skip', skipped.id, '--count', '2', '--reason', 'skip tonight'])).toMatchObject({ skipRemaining: 2, skipReason: 'skip tonight' });
    expect(await timeline('cli.tonight.skip')).toEqual([2, 3, 4, 5].map((k) => `${slot(k)} cli.tonight.skip`));

    const paused = await runJson(['jobs', 'create', '--key', 'cli.tonight.pause', '--target', 'log', '--cron', cron]);
    const asked = await runJson(['jobs', 'pause', paused.id, '--reason', 'until the deploy', '--until', '+3h']);
    expect(asked).toMatchObject({ status: 'PAUSED', pauseReason: 'until the deploy' });
    const until = Date.parse(asked.pausedUntil);
    expect(Math.abs(until - (now + 3 * hour))).toBeLessThan(5 * 60_000);
    // From the pause's end on: the slots 2.5 h, 3.5 h … from now when the job was created (k = 3, 4, 5).
    expect(await timeline('cli.tonight.pause')).toEqual([3, 4, 5].map((k) => `${slot(k)} cli.tonight.pause`));

    await api.cronql.calendars.set({ name: 'cli-tonight', windows: [{ from: new Date(slot(1)), to: new Date(slot(2)), reason: 'maintenance' }] });
    const withCalendar = await runJson(['jobs', 'create', '--key', 'cli.tonight.cal', '--target', 'log', '--cron', cron, '--calendar', 'cli-tonight']);
    expect(await timeline('cli.tonight.cal')).toEqual([0, 2, 3, 4, 5].map((k) => `${slot(k)} cli.tonight.cal`));

    // People get a table, in time order across jobs (one slot's jobs by id); --limit stops early.
    const table = await run(['upcoming', '--to', to, '--key-contains', 'cli.tonight', '--limit', '3']);
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n').map((l) => l.split(/\s+/).join(' '));
    expect(header).toBe('SLOT DUEAT KEY TARGET');
    expect(rows[0]).toBe(`${slot(0)} cli.tonight.cal log`);
    expect(rows.slice(1).sort()).toEqual([`${slot(2)} cli.tonight.cal log`, `${slot(2)} cli.tonight.skip log`]);
    const backwards = await run(['upcoming', '--from', to, '--to', slot(0)]);
    expect(backwards.code).toBe(1);
    expect(backwards.stderr.trim()).toMatch(/^error BAD_USER_INPUT: /);
    // The calendars test after this one lists the calendars: this one goes.
    await api.cronql.jobs.retire(withCalendar.id);
    await api.cronql.calendars.delete('cli-tonight');
  });

  it('audit: who changed what, filtered by job, action and time, newest first; --limit; a VIEWER is FORBIDDEN', async () => {
    const job = await runJson(['jobs', 'create', '--key', 'cli.audited', '--target', 'log', '--cron', '0 4 * * *']);
    await runJson(['jobs', 'pause', job.id, '--reason', 'from the CLI test']);
    const mine = await runJson(['audit', '--job', 'cli.audited', '--since', '1h']);
    expect(mine).toMatchObject({
      totalCount: 2,
      entries: [
        { actor: 'admin', action: 'pauseJob', jobKey: 'cli.audited', details: { reason: 'from the CLI test' } },
        { actor: 'admin', action: 'createJob', jobKey: 'cli.audited' },
      ],
    });
    const one = await runJson(['audit', '--action', 'pauseJob', 'createJob', '--limit', '1']);
    expect(one.entries).toHaveLength(1);
    expect(one.totalCount).toBeGreaterThanOrEqual(2);
    const table = await run(['audit', '--job', 'cli.audited', '--actor', 'admin']);
    expect(table.stdout.split('\n')[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+JOB\s+SUBJECT\s+DETAILS\s*$/);
    expect((await run(['audit'], api.viewerToken)).stderr.trim()).toMatch(/^error FORBIDDEN: /);
    expect((await run(['audit', '--since', 'yesterday'])).stderr.trim()).toMatch(/^error BAD_USER_INPUT: /);
  });

  it('prints the API error code and exits 1', async () => {
    const bad = await run(['jobs', 'create', '--key', 'cli.bad', '--target', 'log', '--cron', 'not a cron']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^error INVALID_CRON_EXPRESSION: /);
    const viewer = await run(['jobs', 'retire', '00000000-0000-4000-8000-000000000000'], api.viewerToken);
    expect(viewer.stderr.trim()).toMatch(/^error FORBIDDEN: /);
    const nowhere = await promisify(execFile)(process.execPath, [cli, '--url', 'http://127.0.0.1:9', 'targets']).catch((e) => e);
    expect(nowhere.stderr).toMatch(/^error UNREACHABLE: /);
  });

  it('apply: creates, then is a no-op; a changed field makes one new version; --prune retires only the namespace; a bad file changes nothing', async () => {
    const file = join(dir, 'jobs.yaml');
    await writeFile(file, `namespace: billing
jobs:
  - key: billing.close-day
    target: log
    cron: "0 2 * * *"
    timezone: Europe/Paris
    payload: { message: close }
    retry: { maxAttempts: 3, delaySeconds: 30 }
    overlap: ALLOW
    maxConcurrentRuns: 2
    jitterSeconds: 60
  - key: billing.invoices
    target: log
    cron: "0 6 * * 1"
    catchUp: LATEST
`);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['create', 'create']);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('"0 2 * * *"', '"30 2 * * *"').replace(/  - key: billing.invoices[\s\S]*$/, ''));
    const dry = await runJson(['apply', file, '--prune', '--dry-run']);
    expect(dry.plan).toEqual([{ action: 'version', key: 'billing.close-day', fields: ['cronExpression'] }, { action: 'retire', key: 'billing.invoices' }]);
    await runJson(['apply', file, '--prune']);
    expect((await runJson(['jobs', 'versions', 'billing.close-day'])).map((j: { version: number; status: string }) => `${j.version}:${j.status}`)).toEqual(['1:RETIRED', '2:ACTIVE']);
    expect((await runJson(['jobs', 'versions', 'billing.invoices']))[0].status).toBe('RETIRED');
    expect((await runJson(['jobs', 'versions', 'cli.hello']))[0].status).toBe('ACTIVE'); // outside the namespace
    // Export round-trips: applying the export changes nothing.
    const exported = join(dir, 'export.yaml');
    await run(['export', '--namespace', 'billing', '--out', exported]);
    expect(parseYaml(await readFile(exported, 'utf8'))).toMatchObject({
      namespace: 'billing',
      jobs: [{
        key: 'billing.close-day', cron: '30 2 * * *', timezone: 'Europe/Paris',
        retry: { maxAttempts: 3, backoff: 'EXPONENTIAL', delaySeconds: 30 }, overlap: 'ALLOW', maxConcurrentRuns: 2, jitterSeconds: 60,
      }],
    });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    // A bad file names the file, the job and the field, and changes nothing.
    await writeFile(join(dir, 'bad.yaml'), 'namespace: billing\njobs:\n  - key: billing.x\n    target: log\n    cron: "* * * * *"\n    shedule: oops\n');
    const bad = await run(['apply', join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.yaml: job "billing\.x", field "shedule": unknown field/);
    expect(await runJson(['jobs', 'list', '--key', 'billing.x'])).toEqual([]);
  });

  it('apply and export round-trip intervals, lists of expressions, bounds, maxRuns and the grace', async () => {
    const file = join(dir, 'schedules.yaml');
    await writeFile(file, `namespace: sched
jobs:
  - key: sched.every
    target: log
    every: 90m
    misfireGraceSeconds: 120
  - key: sched.two
    target: log
    cron: ["0 9 * * 1-5", "0 12 * * 0,6"]
    timezone: Europe/Berlin
    startAt: 2031-01-01T00:00:00Z
    endAt: 2031-06-01T00:00:00Z
    maxRuns: 10
`);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['create', 'create']);
    // "90m" is the server's "1h30m", and the anchor the file leaves to the server is kept.
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged']);
    const exported = join(dir, 'sched-export.yaml');
    await run(['export', '--namespace', 'sched', '--out', exported]);
    const jobs = (parseYaml(await readFile(exported, 'utf8')) as { jobs: Record<string, unknown>[] }).jobs;
    expect(jobs.find((j) => j.key === 'sched.every')).toMatchObject({ every: '1h30m', anchorAt: expect.stringMatching(/T\d\d:\d\d:\d\d\.000Z$/), misfireGraceSeconds: 120 });
    expect(jobs.find((j) => j.key === 'sched.two')).toMatchObject({
      cron: ['0 9 * * 1-5', '0 12 * * 0,6'], timezone: 'Europe/Berlin', startAt: '2031-01-01T00:00:00.000Z', endAt: '2031-06-01T00:00:00.000Z', maxRuns: 10,
    });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('every: 90m', 'every: 2h').replace('maxRuns: 10', 'maxRuns: 12'));
    expect((await runJson(['apply', file])).plan).toEqual([
      { action: 'version', key: 'sched.every', fields: ['every'] },
      { action: 'version', key: 'sched.two', fields: ['maxRuns'] },
    ]);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('apply creates AFTER jobs after their upstreams (whatever the file order, one job per call), and after/afterMode round-trip through export', async () => {
    const file = join(dir, 'pipeline.yaml');
    // The report is listed first, its upstreams after it: apply creates them first.
    await writeFile(file, `namespace: pipe
jobs:
  - key: pipe.report
    target: log
    after: [pipe.export-a, { jobKey: pipe.export-b, on: ANY }]
    afterMode: ALL
    afterWindowSeconds: 3600
  - key: pipe.export-a
    target: log
    after: [pipe.import]
  - key: pipe.export-b
    target: log
    after: [pipe.import]
  - key: pipe.import
    target: log
    cron: "0 2 * * *"
`);
    expect((await runJson(['apply', '--batch-size', '1', file])).plan.map((p: { key: string }) => p.key)).toEqual(['pipe.import', 'pipe.export-a', 'pipe.export-b', 'pipe.report']);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    const exported = join(dir, 'pipe-export.yaml');
    await run(['export', '--namespace', 'pipe', '--out', exported]);
    const jobs = (parseYaml(await readFile(exported, 'utf8')) as { jobs: Record<string, unknown>[] }).jobs;
    expect(jobs.find((j) => j.key === 'pipe.report')).toEqual({
      key: 'pipe.report', target: 'log', after: ['pipe.export-a', { jobKey: 'pipe.export-b', on: 'ANY' }], afterMode: 'ALL', afterWindowSeconds: 3600,
    });
    expect(jobs.find((j) => j.key === 'pipe.export-a')).toEqual({ key: 'pipe.export-a', target: 'log', after: ['pipe.import'] });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    // A changed outcome is a new version of that job only.
    await writeFile(file, (await readFile(file, 'utf8')).replace('on: ANY', 'on: FAILED'));
    expect((await runJson(['apply', file])).plan.filter((p: { action: string }) => p.action !== 'unchanged')).toEqual([{ action: 'version', key: 'pipe.report', fields: ['after'] }]);
  });

  /**
   * One bad field of one job, generated from the rules' bounds: [name, field as the file spells it,
   * the stable code, the job's fields]. Each is the last of a file of several good jobs, so an
   * apply that went job by job would have created the others.
   */
  type BadJob = [string, string, string, Record<string, unknown>];
  const month = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const badJobs: BadJob[] = [
    ['a cron expression that does not parse', 'cron', 'INVALID_CRON_EXPRESSION', { cron: 'every now and then' }],
    ['a cron field out of range', 'cron', 'INVALID_CRON_EXPRESSION', { cron: '61 * * * *' }],
    ['an unknown time zone', 'timezone', 'INVALID_TIMEZONE', { timezone: 'Mars/Olympus_Mons' }],
    ['an unknown target', 'target', 'UNKNOWN_TARGET', { target: 'no-such-target' }],
    ['a runAt long past', 'runAt', 'INVALID_RUN_AT', { cron: undefined, runAt: '2001-01-01T00:00:00Z' }],
    ...[0, MAX_TIMEOUT_SECONDS + 1, 1.5].map((v): BadJob => [`timeoutSeconds ${v}`, 'timeoutSeconds', 'BAD_USER_INPUT', { timeoutSeconds: v }]),
    ['an unknown catchUp', 'catchUp', 'BAD_USER_INPUT', { catchUp: 'SOMETIMES' }],
    ['catchUpLimit without ALL', 'catchUpLimit', 'BAD_USER_INPUT', { catchUp: 'LATEST', catchUpLimit: 3 }],
    ...[0, MAX_CATCH_UP_LIMIT + 1].map((v): BadJob => [`catchUpLimit ${v}`, 'catchUpLimit', 'BAD_USER_INPUT', { catchUp: 'ALL', catchUpLimit: v }]),
    ...[0, MAX_PAUSE_AFTER_FAILURES + 1].map((v): BadJob => [`pauseAfterFailures ${v}`, 'pauseAfterFailures', 'BAD_USER_INPUT', { pauseAfterFailures: v }]),
    ...[0, MAX_ATTEMPTS + 1].map((v): BadJob => [`retry.maxAttempts ${v}`, 'retry.maxAttempts', 'INVALID_POLICY', { retry: { maxAttempts: v } }]),
    ['an unknown backoff', 'retry.backoff', 'INVALID_POLICY', { retry: { maxAttempts: 2, backoff: 'RANDOM' } }],
    ...[-1, MAX_RETRY_DELAY_SECONDS + 1].map((v): BadJob => [`retry.delaySeconds ${v}`, 'retry.delaySeconds', 'INVALID_POLICY', { retry: { maxAttempts: 2, delaySeconds: v } }]),
    ['a cap below the delay', 'retry.maxDelaySeconds', 'INVALID_POLICY', { retry: { maxAttempts: 2, delaySeconds: 60, maxDelaySeconds: 30 } }],
    ['a retryOn code in lower case', 'retry.retryOn', 'INVALID_POLICY', { retry: { maxAttempts: 2, retryOn: ['timeout'] } }],
    ['an unknown overlap', 'overlap', 'INVALID_POLICY', { overlap: 'SOMETIMES' }],
    ...[0, MAX_CONCURRENT_RUNS + 1].map((v): BadJob => [`maxConcurrentRuns ${v}`, 'maxConcurrentRuns', 'INVALID_POLICY', { overlap: 'ALLOW', maxConcurrentRuns: v }]),
    ...[-1, MAX_JITTER_SECONDS + 1].map((v): BadJob => [`jitterSeconds ${v}`, 'jitterSeconds', 'INVALID_POLICY', { jitterSeconds: v }]),
    ["a jitter longer than the schedule's interval", 'jitterSeconds', 'INVALID_POLICY', { cron: '*/5 * * * *', jitterSeconds: 301 }],
    ...[-1, MAX_CAPTURE_BYTES + 1].map((v): BadJob => [`captureBytes ${v}`, 'captureBytes', 'INVALID_POLICY', { captureBytes: v }]),
    ...[0, MAX_TIMEOUT_SECONDS + 1, 2.5].map((v): BadJob => [`heartbeatTimeoutSeconds ${v}`, 'heartbeatTimeoutSeconds', 'BAD_USER_INPUT', { heartbeatTimeoutSeconds: v }]),
    ['a key the API refuses', 'key', 'BAD_USER_INPUT', { key: 'KEYNS has spaces' }],
    ...['0s', '367d', 'often'].map((v): BadJob => [`every ${v}`, 'every', 'INVALID_SCHEDULE', { cron: undefined, every: v }]),
    ['an anchor off its second', 'anchorAt', 'INVALID_SCHEDULE', { cron: undefined, every: '1h', anchorAt: '2031-01-01T00:00:00.500Z' }],
    ['an expression listed twice', 'cron', 'INVALID_SCHEDULE', { cron: ['0 9 * * *', '0 9 * * *'] }],
    ['an endAt past', 'endAt', 'INVALID_SCHEDULE', { endAt: '2001-01-01T00:00:00Z' }],
    ...[0, MAX_MAX_RUNS + 1].map((v): BadJob => [`maxRuns ${v}`, 'maxRuns', 'INVALID_SCHEDULE', { maxRuns: v }]),
    ...[0, MAX_MISFIRE_GRACE_SECONDS + 1].map((v): BadJob => [`misfireGraceSeconds ${v}`, 'misfireGraceSeconds', 'INVALID_SCHEDULE', { misfireGraceSeconds: v }]),
  ];
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const liveKeys = async (namespace: string) =>
    (await ok(api.url, JobsDocument, { filter: { keyContains: `${namespace}.` }, first: 100 }, api.adminToken)).jobs.edges.map((e) => e.node.key);

  it('calendars in a jobs file: set before the jobs that name them, exported with them (a round trip), an unknown one refused before any change; list and delete', async () => {
    const file = join(dir, 'calendars.yaml');
    await writeFile(file, `namespace: ops
calendars:
  - name: ops-holidays
    timezone: America/New_York
    dates: [2026-12-25, 2026-11-26]
    yearly: ["01-01"]
    dailyWindows: [{ start: "22:00", end: "06:00", reason: batch }]
    windows: [{ from: "2026-12-20T00:00:00Z", to: "2027-01-03T00:00:00Z" }]
jobs:
  - key: ops.report
    target: log
    cron: "0 9 * * 1-5"
    timezone: America/New_York
    calendars: [ops-holidays]
`);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['set-calendar', 'create']);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    const exported = join(dir, 'calendars-export.yaml');
    await run(['export', '--namespace', 'ops', '--out', exported]);
    expect(parseYaml(await readFile(exported, 'utf8'))).toEqual({
      namespace: 'ops',
      calendars: [{
        name: 'ops-holidays', timezone: 'America/New_York', dates: ['2026-11-26', '2026-12-25'], yearly: ['01-01'],
        dailyWindows: [{ start: '22:00', end: '06:00', reason: 'batch' }], windows: [{ from: '2026-12-20T00:00:00.000Z', to: '2027-01-03T00:00:00.000Z' }],
      }],
      jobs: [{ key: 'ops.report', target: 'log', cron: '0 9 * * 1-5', timezone: 'America/New_York', calendars: ['ops-holidays'] }],
    });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    // A job naming a calendar neither the file nor the server has: refused before anything changes.
    await writeFile(file, (await readFile(file, 'utf8')).replace('calendars: [ops-holidays]', 'calendars: [ops-holidays, nope]').replace('"22:00"', '"21:00"'));
    const refused = await run(['apply', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error UNKNOWN_CALENDAR: .*calendars\.yaml: job "ops\.report", field "calendars": calendar "nope" does not exist/);
    const [listed] = await runJson(['calendars', 'list']);
    expect(listed).toMatchObject({ name: 'ops-holidays', dailyWindows: [{ start: '22:00' }], usedBy: [{ key: 'ops.report' }] });
    const inUse = await run(['calendars', 'delete', 'ops-holidays']);
    expect(inUse.stderr).toMatch(/^error CALENDAR_IN_USE: /);
  });

  it('concurrency pools in a jobs file: set before the jobs that name them, exported with them (a round trip), an unknown one refused before any change; list and delete', async () => {
    const file = join(dir, 'pools.yaml');
    await writeFile(file, `namespace: partner
pools:
  - name: partner-api
    limit: 5
jobs:
  - key: partner.sync
    target: log
    cron: "0 9 * * *"
    concurrencyPool: partner-api
`);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['set-pool', 'create']);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    const exported = join(dir, 'pools-export.yaml');
    await run(['export', '--namespace', 'partner', '--out', exported]);
    expect(parseYaml(await readFile(exported, 'utf8'))).toEqual({
      namespace: 'partner',
      pools: [{ name: 'partner-api', limit: 5 }],
      jobs: [{ key: 'partner.sync', target: 'log', cron: '0 9 * * *', concurrencyPool: 'partner-api' }],
    });
    expect((await runJson(['apply', exported])).plan.map((p: { action: string }) => p.action)).toEqual(['unchanged']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('concurrencyPool: partner-api', 'concurrencyPool: nope').replace('limit: 5', 'limit: 6'));
    const refused = await run(['apply', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error UNKNOWN_POOL: .*pools\.yaml: job "partner\.sync", field "concurrencyPool": pool "nope" does not exist/);
    const [listed] = await runJson(['pools', 'list']);
    expect(listed).toMatchObject({ name: 'partner-api', limit: 5, running: 0, waiting: 0, jobs: [{ key: 'partner.sync' }] });
    const inUse = await run(['pools', 'delete', 'partner-api']);
    expect(inUse.stderr).toMatch(/^error POOL_IN_USE: /);
  });

  it('apply, apply --dry-run and validate of a file with every kind of bad job: one line per bad job naming the file, the key and the field, the code kept; nothing changed', async () => {
    const file = join(dir, 'generated.yaml');
    const good = [
      { key: 'gen.a', target: 'log', cron: '0 1 * * *' },
      { key: 'gen.b', target: 'log', runAt: month, timezone: 'Europe/Paris' },
      { key: 'gen.c', target: 'sleep', cron: '0 2 * * *', retry: { maxAttempts: 2 }, overlap: 'ALLOW', maxConcurrentRuns: 2 },
    ];
    await writeFile(file, toYaml({ namespace: 'gen', jobs: good }));
    await runJson(['apply', file]);
    // The good jobs change and one is added; the bad ones sit between them, so an apply that went
    // job by job would have changed some before meeting the first bad one.
    const changed = good.map((j) => ({ ...j, ...(j.cron ? { cron: '0 4 * * *' } : { timezone: 'UTC' }) }));
    const bad = badJobs.map(([, , , fields], i) =>
      Object.fromEntries(Object.entries({ target: 'log', cron: '0 3 * * *', ...fields, key: String(fields.key ?? `gen.bad-${i}`).replace('KEYNS', 'gen.') }).filter(([, v]) => v !== undefined)),
    );
    await writeFile(file, toYaml({ namespace: 'gen', jobs: [changed[0], ...bad, changed[1], changed[2], { key: 'gen.d', target: 'log', cron: '0 5 * * *' }] }));
    const expected = badJobs.map(([, field, code], i) => new RegExp(`^error ${code}: ${escape(file)}: job "${escape(String(bad[i].key))}", field "${escape(field)}": \\S`));
    for (const args of [['apply', file], ['apply', file, '--dry-run'], ['validate', file]]) {
      const res = await run(args);
      expect(res.code, args.join(' ')).toBe(1);
      const lines = res.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(badJobs.length);
      lines.forEach((line, i) => expect(line, badJobs[i][0]).toMatch(expected[i]));
    }
    expect((await liveKeys('gen')).sort()).toEqual(['gen.a', 'gen.b', 'gen.c']);
    for (const key of ['gen.a', 'gen.b', 'gen.c']) expect((await runJson(['jobs', 'versions', key])).map((j: { version: number }) => j.version)).toEqual([1]);
    // Without the bad jobs, the same file applies.
    await writeFile(file, toYaml({ namespace: 'gen', jobs: [...changed, { key: 'gen.d', target: 'log', cron: '0 5 * * *' }] }));
    expect((await runJson(['validate', file])).jobs).toBe(4);
    expect((await runJson(['apply', file])).plan.map((p: { action: string }) => p.action)).toEqual(['version', 'version', 'version', 'create']);
  });

  it('a rule only the server knows (its payload limit) fails during apply: the line names the job and says what was applied before it', async () => {
    const file = join(dir, 'payload.yaml');
    const jobs = [
      { key: 'payload.small', target: 'log', cron: '0 1 * * *' },
      { key: 'payload.large', target: 'log', cron: '0 1 * * *', payload: { text: 'x'.repeat(70_000) } },
    ];
    await writeFile(file, toYaml({ jobs }));
    // One job a batch: the small one is created before the large one is refused.
    const res = await run(['apply', file, '--batch-size', '1']);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(/^error PAYLOAD_TOO_LARGE: .*payload\.yaml: job "payload\.large", field "payload": .*\(create failed; applied before it: create payload\.small; nothing after it\)$/);
  });

  it('apply creates new jobs a batch at a time: every batch boundary, a refused job leaves its whole batch (and those after) uncreated, re-apply touches nothing', async () => {
    const file = join(dir, 'batches.yaml');
    const keys = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `batch.j${from + i}`);
    const liveKeys = async () => (await api.cronql.jobs.list({ keyContains: 'batch.' }, 500)).nodes.map((n) => n.jobKey).sort();
    // Generated: 7 jobs in batches of 3 (3 + 3 + 1), the payload of job `bad` over the server's
    // limit (a rule only the server knows); for each position, what is created is exactly the
    // batches before the refused job's.
    for (const bad of [0, 2, 3, 6]) {
      const jobs = keys(7, bad * 10).map((key, i) => ({ key, target: 'log', cron: '0 4 * * *', ...(i === bad ? { payload: { text: 'x'.repeat(70_000) } } : {}) }));
      await writeFile(file, toYaml({ jobs }));
      const before = await liveKeys();
      const res = await run(['apply', file, '--batch-size', '3']);
      expect(res.code).toBe(1);
      const batchStart = bad - (bad % 3);
      expect(res.stderr.trim()).toMatch(new RegExp(`job "batch\\.j${bad * 10 + bad}", field "payload": .*\\(create failed; ${batchStart === 0 ? 'nothing was changed' : 'applied before it: create batch'}.*; nothing after it\\)$`));
      expect(await liveKeys()).toEqual([...before, ...jobs.slice(0, batchStart).map((j) => j.key)].sort());
    }
    // A good file of 7 in batches of 3, then the same file again: all unchanged, no row touched.
    await writeFile(file, toYaml({ jobs: keys(7, 100).map((key) => ({ key, target: 'log', cron: '0 4 * * *', payload: { n: key } })) }));
    expect((await runJson(['apply', file, '--batch-size', '3'])).plan.map((p: { action: string }) => p.action)).toEqual(Array(7).fill('create'));
    const rows = async () => (await api.cronql.pool.query(`SELECT job_key, version, revision, updated_at FROM cron_job_definitions WHERE job_key LIKE 'batch.j1__' ORDER BY job_key`)).rows;
    const first = await rows();
    expect(first).toHaveLength(7);
    expect((await runJson(['apply', file, '--batch-size', '3'])).plan.map((p: { action: string }) => p.action)).toEqual(Array(7).fill('unchanged'));
    expect(await rows()).toEqual(first);
    for (const key of keys(7, 100)) expect(api.cronql.runtime!.nextRunAt((await api.cronql.jobs.list({ key }, 1)).nodes[0].id)).toBeInstanceOf(Date);
  });

  it('apply versions changed jobs a batch at a time (createJobVersions): a refused job leaves its whole batch (and those after) as they were, the batches before it versioned; then the file applies and re-applies as unchanged', async () => {
    const file = join(dir, 'versions.yaml');
    const keys = Array.from({ length: 7 }, (_, i) => `vbatch.j${i}`);
    const live = async () =>
      new Map((await api.cronql.jobs.list({ keyContains: 'vbatch.', status: ['ACTIVE', 'PAUSED'] as never }, 500)).nodes.map((n) => [n.jobKey, { version: n.version, labels: n.labels }]));
    await writeFile(file, toYaml({ jobs: keys.map((key) => ({ key, target: 'log', cron: '0 4 * * *' })) }));
    expect((await runJson(['apply', file, '--batch-size', '3'])).plan.map((p: { action: string }) => p.action)).toEqual(Array(7).fill('create'));
    // Every job changed (a new label, a bulk edit), job 4's payload over the server's limit (a
    // rule only the server knows): batches of 3 are j0–j2 (versioned), j3–j5 (refused), j6 (not sent).
    const changed = (bad?: number) => keys.map((key, i) => ({ key, target: 'log', cron: '0 4 * * *', labels: { team: 'ops' }, ...(i === bad ? { payload: { text: 'x'.repeat(70_000) } } : {}) }));
    await writeFile(file, toYaml({ jobs: changed(4) }));
    const res = await run(['apply', file, '--batch-size', '3']);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(/^error PAYLOAD_TOO_LARGE: .*versions\.yaml: job "vbatch\.j4", field "payload": .*\(version failed; applied before it: version vbatch\.j0, version vbatch\.j1, version vbatch\.j2; nothing after it\)$/);
    const after = await live();
    expect(keys.map((k) => after.get(k)!.version)).toEqual([2, 2, 2, 1, 1, 1, 1]);
    expect(keys.map((k) => after.get(k)!.labels)).toEqual([...Array(3).fill({ team: 'ops' }), ...Array(4).fill({})]);
    // The good file: the jobs left are versioned (one version each, the fields named), then nothing.
    await writeFile(file, toYaml({ jobs: changed() }));
    expect((await runJson(['apply', file, '--batch-size', '3'])).plan).toEqual(
      keys.map((key, i) => (i < 3 ? { action: 'unchanged', key } : { action: 'version', key, fields: ['labels'] })),
    );
    expect((await runJson(['apply', file, '--batch-size', '3'])).plan.map((p: { action: string }) => p.action)).toEqual(Array(7).fill('unchanged'));
    const final = await live();
    expect(keys.map((k) => final.get(k)!.version)).toEqual([2, 2, 2, 2, 2, 2, 2]);
    // One audit entry per job versioned, each as createJobVersion's.
    const audit = await api.cronql.pool.query(`SELECT job_key, details FROM cron_audit_log WHERE action = 'createJobVersions' AND job_key LIKE 'vbatch.%' ORDER BY job_key`);
    expect(audit.rows.map((r) => r.job_key)).toEqual(keys);
    expect(audit.rows[0].details).toMatchObject({ version: 2, fields: expect.arrayContaining(['labels', 'target']) });
  });

  it('tokens: create prints the secret once, whoami names it, list never shows it, revoke ends it (TOKEN_REVOKED)', async () => {
    const created = await run(['tokens', 'create', '--name', 'cli-ops', '--role', 'operator', '--selector', 'team=cli']);
    expect(created.code, created.stderr).toBe(0);
    const secret = /secret \(shown only this once\): (cq_\S+)/.exec(created.stdout)?.[1];
    expect(secret).toMatch(/^cq_[A-Za-z0-9_-]{43}$/);
    const whoami = await run(['--json', 'whoami'], secret);
    expect(whoami.code, whoami.stderr).toBe(0);
    const me = JSON.parse(whoami.stdout);
    expect(me).toMatchObject({ name: 'cli-ops', role: 'OPERATOR', labelSelector: 'team=cli' });
    const list = await run(['--json', 'tokens', 'list']);
    expect(JSON.parse(list.stdout).map((t: { name: string }) => t.name)).toContain('cli-ops');
    expect(list.stdout).not.toContain(secret!.slice(3));
    expect(await runJson(['tokens', 'revoke', me.id])).toMatchObject({ id: me.id, revokedAt: expect.any(String) });
    const refused = await run(['whoami'], secret);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error TOKEN_REVOKED: /);
    const bad = await run(['tokens', 'create', '--name', 'x', '--role', 'root']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error BAD_USER_INPUT: --role/);
  });

  it('verify: creates the */5 acceptance job, runs it once, and confirms it SUCCEEDED', async () => {
    const res = await runJson(['verify', '--timeout', '20']);
    expect(res).toMatchObject({ ok: true, runNow: expect.any(String) });
    const again = await runJson(['verify', '--timeout', '20']); // reuses the job
    expect(again.jobId).toBe(res.jobId);
  });
});
