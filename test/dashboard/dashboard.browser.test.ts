import { mkdir } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardLink } from '../../src/auth/admin-token.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { TokenRole } from '../../src/domain/token-role.js';
import { codes, gql, startApi, type Api } from '../graphql/support.js';
import { browserTestsRun, launchChromium, patient, recordingContext, type Recorder } from '../support/chromium.js';

/**
 * The dashboard in headless Chromium against a real cronql (runtime, PostgreSQL, HTTP and
 * graphql-ws): sign-in, the two views kept live, the actions through their forms, the DST marks
 * of the preview, the live indicator, a load of 1,000 jobs and 100 runs/s, and a screenshot of
 * each view in test-artifacts/dashboard/ (git-ignored).
 */
const run = browserTestsRun('dashboard.browser');

/** What the `log-gated` handler waits for between its first line and the rest. */
let openGate = () => {};
const gateOpened = () => new Promise<void>((resolve) => (openGate = resolve));
let gate = gateOpened();

/** Where the screenshots go (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));

describe.skipIf(!run)('the dashboard in headless Chromium', { timeout: 60_000 }, () => {
  let api: Api;
  let base: string;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  const recorder: Recorder = { requests: [], websockets: [], problems: [] };
  const serverUrls: string[] = [];
  const sockets = new Set<Socket>();
  let jobId = '';

  beforeAll(async () => {
    api = await startApi({
      targets: {
        // One line, then (once the test opens the gate) 30 more: the run page must follow them live.
        'log-gated': async (ctx) => {
          ctx.log.info('waiting for the gate');
          await gate;
          for (let i = 1; i <= 30; i++) ctx.log.warn({ i }, `after the gate ${i}`);
        },
      },
    });
    base = api.http.url;
    api.http.server.on('request', (req) => serverUrls.push(req.url ?? ''));
    api.http.server.on('upgrade', (req, socket: Socket) => {
      serverUrls.push(req.url ?? '');
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    browser = await launchChromium();
    admin = await recordingContext(browser, base, recorder, { viewport: { width: 1440, height: 900 } });
    page = await admin.newPage();
    await mkdir(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const shot = (name: string, fullPage = true) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
  const go = async (hash: string, p: Page = page) => {
    // A click on a link or a fragment change: never a reload.
    await p.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  };

  it('opens the startup link: the token leaves the address bar for sessionStorage, ADMIN sees the actions', async () => {
    await page.goto(dashboardLink(base, api.adminToken), { waitUntil: 'load' });
    await page.locator('[data-testid=jobs-table]').waitFor();
    expect(await page.evaluate<string>('location.href')).toBe(`${base}/dashboard#/jobs`);
    const entries = await page.evaluate<string[]>('navigation.entries().map((e) => e.url)');
    for (const entry of entries) expect(entry).not.toContain(api.adminToken);
    expect(await page.evaluate<string | null>(`sessionStorage.getItem('cronql:dashboard:token')`)).toBe(api.adminToken);
    expect(await page.locator('[data-testid=role]').innerText()).toBe('ADMIN');
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'New job…' }).count(), patient).toBe(1);
    for (const url of serverUrls) expect(url).not.toContain(api.adminToken);

    // Reload: still signed in (sessionStorage), no token in any URL.
    await page.reload({ waitUntil: 'load' });
    await page.locator('[data-testid=role]').waitFor();
    expect(await page.locator('[data-testid=role]').innerText()).toBe('ADMIN');
  });

  it('creates a seconds-job through the form; an invalid expression is refused next to its field', async () => {
    await page.evaluate('window.__sameDocument = true');
    await page.getByRole('link', { name: 'New job…' }).click();
    await page.locator('#f-key').fill('dash-every-second');
    await page.locator('#f-target').selectOption('log');
    await page.locator('#f-cronExpression').fill('* * * 31 2 *');
    await page.locator('#f-payload').fill('{ "message": "hello from the dashboard" }');
    await page.getByRole('button', { name: 'Create job' }).click();
    const cronError = page.locator('[data-field=cronExpression] .field-error');
    await cronError.waitFor();
    expect(await cronError.getAttribute('data-code')).toBe('INVALID_CRON_EXPRESSION');

    await page.locator('#f-cronExpression').fill('* * * * * *');
    await expect.poll(() => page.locator('[data-field=cronExpression] .hint').innerText(), patient).toContain('Every second');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('article[data-job-id]').waitFor();
    jobId = (await page.locator('article[data-job-id]').getAttribute('data-job-id'))!;
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.locator('#job-title').innerText()).toContain('dash-every-second');
  });

  it('job policies in the form: a schedule said in English, retries and overlap; an out-of-range value is refused next to its field', async () => {
    await go('#/jobs/new');
    await page.locator('#f-key').fill('dash-policies');
    await page.locator('#f-target').selectOption('log');
    await page.locator('#f-english').fill('every weekday at 9am in Europe/Berlin');
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.locator('#f-cronExpression').inputValue(), patient).toBe('0 9 * * 1-5');
    expect(await page.locator('#f-timezone').inputValue()).toBe('Europe/Berlin');
    await page.locator('#f-retryMaxAttempts').fill('11');
    await page.locator('#f-overlap').selectOption('BUFFER_ONE');
    await page.getByRole('button', { name: 'Create job' }).click();
    const retryError = page.locator('[data-field=retryMaxAttempts] .field-error');
    await retryError.waitFor();
    expect(await retryError.getAttribute('data-code')).toBe('INVALID_POLICY');
    await page.locator('#f-retryMaxAttempts').fill('3');
    await page.locator('#f-retryDelaySeconds').fill('30');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('article[data-job-id]').waitFor();
    expect(await page.locator('[data-testid=retry-policy]').innerText()).toBe('up to 3 attempts, EXPONENTIAL backoff from 30 s');
    expect(await page.locator('[data-testid=overlap-policy]').innerText()).toBe('BUFFER_ONE');
    expect(await page.locator('article[data-job-id]').innerText()).toContain('At 09:00, Monday through Friday (Europe/Berlin time)');
  });

  it('an interval through the form: said in English, bounded by maxRuns, with its own grace; a bad length is refused next to its field', async () => {
    await go('#/jobs/new');
    await page.locator('#f-key').fill('form-interval'); // not "dash…": the screenshots list those
    await page.locator('#f-target').selectOption('log');
    await page.locator('#f-english').fill('every 45 minutes');
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.locator('#f-every').inputValue(), patient).toBe('45m');
    expect(await page.locator('input[name=scheduleType][value=INTERVAL]').isChecked()).toBe(true);
    await page.locator('#f-every').fill('0s');
    await page.getByRole('button', { name: 'Create job' }).click();
    const everyError = page.locator('[data-field=every] .field-error');
    await everyError.waitFor();
    expect(await everyError.getAttribute('data-code')).toBe('INVALID_SCHEDULE');
    await page.locator('#f-every').fill('45m');
    await page.locator('#f-maxRuns').fill('3');
    await page.locator('#f-misfireGraceSeconds').fill('120');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('article[data-job-id]').waitFor();
    const article = await page.locator('article[data-job-id]').innerText();
    expect(article).toContain('every 45m');
    expect(article).toContain('Every 45 minutes, from');
    expect(await page.locator('[data-testid=bounds]').innerText()).toContain('at most 3 runs');
    expect(article).toContain('120 s');
  });

  it('notification routing through the form: an unknown channel is refused next to its field; the job page says where alerts go', async () => {
    await api.cronql.channels.set({ name: 'team-pager', kind: 'WEBHOOK' as never, url: 'https://hooks.example.com/cronql' });
    await go('#/jobs/new');
    await page.locator('#f-key').fill('form-notify'); // not "dash…": the screenshots list those
    await page.locator('#f-target').selectOption('log');
    await page.locator('#f-cronExpression').fill('0 3 1 1 *');
    await page.locator('#f-notify').fill('no-such-channel');
    await page.locator('#f-expectSuccessWithinSeconds').fill('600');
    await page.getByRole('button', { name: 'Create job' }).click();
    const notifyError = page.locator('[data-field=notify] .field-error');
    await notifyError.waitFor();
    expect(await notifyError.getAttribute('data-code')).toBe('UNKNOWN_CHANNEL');
    await page.locator('#f-notify').fill('team-pager');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('article[data-job-id]').waitFor();
    expect(await page.locator('[data-testid=job-notify]').innerText()).toBe('team-pager');
    expect(await page.locator('article[data-job-id]').innerText()).toContain('600 s of a slot');
    const job = (await api.cronql.jobs.list({ key: 'form-notify' }, 1)).nodes[0];
    expect(job).toMatchObject({ notify: ['team-pager'], expectSuccessWithinSeconds: 600 });
  });

  it("an AFTER job through the form: an unknown upstream is refused next to its field; the pages show upstreams, dependents and a run's upstream run", async () => {
    const upstream = await api.cronql.jobs.create({ key: 'form-upstream', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 1 1 *' });
    await go('#/jobs/new');
    await page.locator('#f-key').fill('form-after'); // not "dash…": the screenshots list those
    await page.locator('#f-target').selectOption('log');
    await page.locator('input[name=scheduleType][value=AFTER]').check();
    await page.locator('#f-after').fill('no-such-upstream');
    await page.getByRole('button', { name: 'Create job' }).click();
    const afterError = page.locator('[data-field=after] .field-error');
    await afterError.waitFor();
    expect(await afterError.getAttribute('data-code')).toBe('UNKNOWN_JOB');
    await page.locator('#f-after').fill('form-upstream:ANY');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('article[data-job-id]').waitFor();
    expect(await page.locator('[data-testid=upstreams]').innerText()).toContain('form-upstream');
    expect(await page.locator('[data-testid=upstreams]').innerText()).toContain('when it ends');
    const job = (await api.cronql.jobs.list({ key: 'form-after' }, 1)).nodes[0];
    expect(job.after).toEqual([{ jobKey: 'form-upstream', on: 'ANY' }]);
    // The upstream's page names its dependent; the dependent's run names the upstream run.
    await go(`#/jobs/${upstream.id}`);
    await expect.poll(() => page.locator('[data-testid=dependents]').innerText(), patient).toContain('form-after');
    await api.cronql.runs.runNow(upstream.id);
    let dependentRun = '';
    await expect.poll(async () => (dependentRun = (await api.cronql.runs.list({ jobKey: 'form-after' }, 1)).nodes[0]?.id ?? ''), patient).not.toBe('');
    await go(`#/runs/${dependentRun}`);
    await expect.poll(() => page.locator('[data-testid=upstream-runs]').innerText(), patient).toContain('form-upstream');
  });

  it('lists the instances, each with the jobs it arms (ADMIN)', async () => {
    await page.getByRole('link', { name: 'Instances' }).click();
    const rows = page.locator('[data-testid=instances-table] tbody tr[data-instance-id]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    // Its heartbeat records its share: every ACTIVE job here (one scheduler).
    await expect.poll(async () => Number(await rows.first().locator('[data-testid=owned-jobs]').innerText()), patient).toBeGreaterThanOrEqual(2);
  });

  it('shows its runs appearing live in Execution jobs, without a reload', async () => {
    await page.getByRole('link', { name: 'Execution jobs' }).click();
    const rows = page.locator('[data-testid=runs-table] tbody tr[data-run-id]');
    await rows.first().waitFor();
    const first = new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id'))));
    // New runs keep arriving (one a second) and finish (SUCCEEDED), with no request for the page.
    await expect
      .poll(async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')))).filter((id) => !first.has(id)).length, patient)
      .toBeGreaterThanOrEqual(2);
    await page.locator('[data-testid=runs-table] tbody tr[data-status=SUCCEEDED]').first().waitFor();
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
  });

  it('run now adds a MANUAL run', async () => {
    await go(`#/jobs/${jobId}`);
    await page.getByRole('button', { name: 'Run now…' }).click();
    await page.locator('[data-testid=run-now-dialog]').getByRole('button', { name: 'Run now' }).click();
    await page.locator('.notice').waitFor();
    await page.locator('[data-testid=runs-table] tbody tr[data-trigger=MANUAL]').first().waitFor({ timeout: 10_000 });
    await go('#/runs');
    await page.locator('[data-testid=runs-table] tbody tr[data-trigger=MANUAL]').first().waitFor({ timeout: 10_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
  });

  it('pause with an empty reason shows REASON_REQUIRED next to the reason; with a reason it pauses', async () => {
    await go(`#/jobs/${jobId}`);
    await page.getByRole('button', { name: 'Pause…' }).click();
    const dialog = page.locator('[data-testid=pause-dialog]');
    await dialog.getByRole('button', { name: 'Pause' }).click();
    const error = dialog.locator('.field-error');
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe('REASON_REQUIRED');
    expect(await page.locator('article[data-job-id]').getAttribute('data-status')).toBe('ACTIVE');

    await dialog.locator('#pause-reason').fill('maintenance window');
    await dialog.getByRole('button', { name: 'Pause' }).click();
    await page.locator('article[data-status=PAUSED]').waitFor();
    expect(await page.locator('[data-testid=pause-reason]').innerText()).toContain('maintenance window');
    await shot('job-detail');

    await go('#/jobs');
    const row = page.locator(`[data-testid=jobs-table] tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('PAUSED');
    expect(await row.innerText()).toContain('maintenance window');
  });

  it("a job's History shows who paused it and why; the Audit page filters every change by action and actor (ADMIN)", async () => {
    await go(`#/jobs/${jobId}`);
    const history = page.getByRole('table', { name: 'History' });
    const paused = history.locator('tr[data-action=pauseJob]');
    await paused.first().waitFor();
    expect(await paused.first().innerText()).toMatch(/admin[\s\S]*pauseJob[\s\S]*reason: maintenance window/);
    await history.locator('tr[data-action=createJob]').waitFor();
    const run = page.locator('[data-testid=runs-table] tbody tr[data-trigger=MANUAL] a').first();
    await run.click();
    await expect.poll(() => page.locator('[data-testid=triggered-by]').innerText(), patient).toBe(' by admin');

    await page.getByRole('link', { name: 'Audit' }).click();
    const table = page.locator('[data-testid=audit-table]');
    await table.locator('tr[data-action=runJobNow]').first().waitFor();
    await page.locator('input[name=action]').fill('pauseJob, pauseJobs');
    await expect.poll(async () => [...new Set(await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action'))))], patient).toEqual(['pauseJob']);
    await shot('audit');
    await page.locator('input[name=actor]').fill('nobody');
    await table.locator('td.empty').waitFor();
  });

  it('marks the DST-shifted slot of 30 2 * * * in America/New_York on 2026-03-08', async () => {
    const created = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` },
      body: JSON.stringify({
        query: 'mutation { createJob(input: { key: "dash-dst", target: "log", scheduleType: RECURRING, cronExpression: "30 2 * * *", timezone: "America/New_York" }) { id } }',
      }),
    }).then((r) => r.json() as Promise<{ data: { createJob: { id: string } } }>);
    await go(`#/jobs/${created.data.createJob.id}`);
    await page.locator('input[name=previewFrom]').fill('2026-03-05');
    const shifted = page.locator('[data-testid=preview-table] tr[data-slot="2026-03-08T07:30:00.000Z"]');
    await shifted.waitFor();
    expect(await shifted.getAttribute('data-mark')).toBe('shifted');
    expect(await shifted.innerText()).toContain('2026-03-08 03:30:00');
    expect(await shifted.innerText()).toContain('02:30 does not exist');
    // Its neighbours are ordinary slots at 02:30 local time.
    const marks = await page.locator('[data-testid=preview-table] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-mark')));
    expect(marks).toHaveLength(10);
    expect(marks.filter((m) => m === 'shifted')).toHaveLength(1);
    expect(await page.locator('[data-testid=preview-table] tr[data-slot="2026-03-07T07:30:00.000Z"]').getAttribute('data-mark')).toBe('');
    await shot('job-detail-dst-preview');
  });

  it('a run\'s detail shows its payload snapshot and output', async () => {
    await go('#/runs');
    const link = page.locator('[data-testid=runs-table] tbody tr[data-status=SUCCEEDED] a', { hasText: 'Details' }).first();
    await link.click();
    await page.locator('article[data-run-id]').waitFor();
    await expect.poll(() => page.locator('pre[aria-label="Payload snapshot"]').innerText(), patient).toContain('hello from the dashboard');
    expect(await page.locator('pre[aria-label="Output"]').innerText()).toContain('hello from the dashboard');
    // The `log` target's line, kept with the run.
    await expect.poll(() => page.locator('[data-testid=run-logs] li[data-sequence="1"]').innerText(), patient).toContain('hello from the dashboard');
    await shot('run-detail');
  });

  it("a running run's page follows its log live, then shows it whole once the run has ended", async () => {
    gate = gateOpened();
    const job = await api.cronql.jobs.create({ key: 'board-log-gated', target: 'log-gated', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 1 1 *' });
    const running = await api.cronql.runs.runNow(job.id);
    await go(`#/runs/${running.id}`);
    const logs = page.locator('[data-testid=run-logs]');
    await expect.poll(() => logs.locator('li[data-sequence="1"]').innerText(), patient).toContain('waiting for the gate');
    await page.locator('[data-testid=run-logs][data-following=true]').waitFor({ timeout: patient.timeout });
    openGate();
    await logs.locator('li[data-sequence="31"]').waitFor({ timeout: patient.timeout });
    expect(await logs.locator('li[data-sequence="31"]').innerText()).toContain('after the gate 30');
    await page.locator('[data-testid=run-logs][data-following=false]').waitFor({ timeout: patient.timeout });
    await page.locator('article[data-status=SUCCEEDED]').waitFor({ timeout: patient.timeout });
    expect(await logs.getAttribute('data-lines')).toBe('31');
    expect(await logs.locator('li').evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-sequence'))))).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    await shot('run-detail-logs');
  });

  it('backfill from a job\'s page shows its plan before it runs; a failed run\'s page offers "run this slot again"', async () => {
    // Every run of this job fails: the http target refuses a loopback address (HTTP_BLOCKED).
    const made = await api.cronql.jobs.create(
      { key: 'board.backfill', target: 'http', scheduleType: ScheduleType.RECURRING, cronExpression: '0 * * * *', payload: { url: 'http://127.0.0.1:9/' } },
      'test',
    );
    const job = await api.cronql.jobs.pause(made.id, 'only backfills run', 'test');
    const hour = 3_600_000;
    const last = Math.floor(Date.now() / hour) * hour - hour;
    await go(`#/jobs/${job.id}`);
    const panel = page.locator('[data-testid=backfill]');
    await panel.locator('#backfill-from').fill(new Date(last - 2 * hour).toISOString());
    await panel.locator('#backfill-to').fill(new Date(last).toISOString());
    await panel.getByRole('button', { name: 'Show the plan' }).click();
    const plan = panel.locator('[data-testid=backfill-plan]');
    await plan.waitFor();
    expect(await plan.innerText()).toContain('Would run 3 slot(s) (NOT_SUCCEEDED); 0 of the range left out.');
    expect(await plan.locator('[data-testid=backfill-slots] li').count()).toBe(3);
    await panel.screenshot({ path: join(ARTIFACTS, 'job-backfill-plan.png') });
    expect(await api.cronql.backfills.ofJob('board.backfill')).toEqual([]); // the plan wrote nothing
    await panel.locator('#backfill-reason').fill('after the fix');
    await plan.getByRole('button', { name: 'Run 3 slot(s)' }).click();
    await panel.locator('[data-testid=backfill-started]').waitFor();
    const [backfill] = await api.cronql.backfills.ofJob('board.backfill');
    await expect.poll(async () => (await api.cronql.backfills.get(backfill.id))?.state, patient).toBe('DONE');

    const failed = (await api.cronql.runs.list({ jobId: job.id, triggerType: ['BACKFILL' as never] }, 10)).nodes[0];
    expect(failed.status).toBe('FAILED');
    await go(`#/runs/${failed.id}`);
    await page.getByRole('button', { name: 'Run this slot again…' }).click();
    await page.locator('[data-testid=slot-again-dialog]').getByRole('button', { name: 'Run it again' }).click();
    await page.locator('[data-testid=slot-again]').waitFor();
    expect(await page.locator('[data-testid=slot-again]').innerText()).toContain('the slot runs again');
    const again = await api.cronql.backfills.ofJob('board.backfill');
    expect(again).toHaveLength(2);
    expect(again[0].slots.map((d) => d.toISOString())).toEqual([failed.scheduledAt.toISOString()]);
  });

  it("an interval job's page: its end bound; skip next and pause until from its actions; Next runs and the Upcoming view leave those slots out", async () => {
    const minute = 60_000;
    const anchor = Math.floor(Date.now() / 1000) * 1000 + 20 * minute;
    const slot = (k: number) => new Date(anchor + k * 30 * minute).toISOString();
    const endAt = new Date(anchor + 2 * 86_400_000);
    const job = await api.cronql.jobs.create({ key: 'board.every30', target: 'log', scheduleType: ScheduleType.INTERVAL, every: '30m', anchorAt: new Date(anchor), endAt } as never);
    const nextRuns = () => page.locator('[data-testid=next-runs] time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
    await go(`#/jobs/${job.id}`);
    // An interval has no expression to preview: its page says what it is instead.
    await page.locator('[data-testid=preview-none]').waitFor();
    expect(await page.locator('[data-testid=preview-none]').innerText()).toContain('every 30m from');
    expect(await page.locator('[data-testid=preview-none]').innerText()).toContain('absolute time');
    await expect.poll(async () => (await nextRuns())[0], patient).toBe(slot(0));
    expect(await page.locator('[data-testid=bounds] time').getAttribute('datetime')).toBe(endAt.toISOString());
    expect(await page.locator('[data-testid=bounds]').innerText()).toContain('not after');

    await page.getByRole('button', { name: 'Skip next…' }).click();
    const skip = page.locator('[data-testid=skip-dialog]');
    await skip.locator('#skip-count').fill('2');
    await skip.locator('#skip-reason').fill('skip tonight');
    await skip.getByRole('button', { name: 'Skip' }).click();
    await page.locator('[data-testid=skip-remaining]').waitFor();
    expect(await page.locator('[data-testid=skip-remaining]').innerText()).toBe('Its next 2 slots will be skipped: skip tonight');
    await expect.poll(async () => (await nextRuns()).slice(0, 3), patient).toEqual([slot(2), slot(3), slot(4)]);

    // "What runs in the next 6 hours": from the third slot (the first two skipped) to the last before the window ends.
    await go('#/upcoming');
    await page.locator('select[name=window]').selectOption('6');
    await page.locator('input[name=keyContains]').fill('board.every30');
    const rows = page.locator('[data-testid=upcoming-table] tr[data-job-key="board.every30"] td:first-child time');
    await expect.poll(() => rows.evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime'))), patient).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(slot));

    // Paused until ten minutes after the fourth slot (the field is in the browser's local time):
    // it resumes then, and the two slots still to skip are the next two after it.
    await go(`#/jobs/${job.id}`);
    await page.getByRole('button', { name: 'Pause…' }).click();
    const pause = page.locator('[data-testid=pause-dialog]');
    const local = await page.evaluate((iso: string) => {
      const d = new Date(iso);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    }, new Date(Date.parse(slot(3)) + 10 * minute).toISOString());
    await pause.locator('#pause-reason').fill('until the deploy');
    await pause.locator('#pause-until').fill(local);
    await pause.getByRole('button', { name: 'Pause' }).click();
    await page.locator('article[data-status=PAUSED]').waitFor();
    expect(await page.locator('[data-testid=pause-reason]').innerText()).toContain('until the deploy — resumes by itself at');
    await expect.poll(async () => (await nextRuns()).slice(0, 2), patient).toEqual([slot(6), slot(7)]);
    await api.cronql.jobs.retire(job.id);
  });

  it('shows when the live connection is lost and when it is back', async () => {
    await go('#/runs');
    await page.locator('[data-testid=live][data-state=live]').waitFor({ timeout: 30_000 });
    await page.evaluate(`(() => {
      window.__liveStates = [];
      const el = document.querySelector('[data-testid=live]');
      new MutationObserver(() => window.__liveStates.push(el.getAttribute('data-state') + ':' + el.textContent)).observe(el, { attributes: true, childList: true, subtree: true, characterData: true });
    })()`);
    expect(sockets.size).toBeGreaterThan(0);
    const before = Number(await page.locator('[data-testid=live]').getAttribute('data-reconnections'));
    for (const socket of sockets) socket.destroy();
    await page
      .locator(`[data-testid=live][data-state=live][data-reconnections="${before + 1}"]`)
      .waitFor({ timeout: 40_000 })
      .catch(async (err: Error) => {
        const seen = await page.evaluate<string[]>('window.__liveStates');
        const now = await page.locator('[data-testid=live]').evaluate((el) => `${el.getAttribute('data-state')} ${el.getAttribute('data-reconnections')}`);
        throw new Error(`${err.message}; reconnections before ${before}, states seen ${JSON.stringify(seen)}, now ${now}`);
      });
    const states = await page.evaluate<string[]>('window.__liveStates');
    expect(states.some((s) => s.startsWith('lost:') && s.includes('Connection lost'))).toBe(true);
    expect(await page.locator('[data-testid=live]').innerText()).toContain('reconnected');
  }, 90_000);

  it('keeps both views live with 1,000 jobs and 100 runs a second arriving', async () => {
    // How fast it stays under this load (the main thread's longest freeze, runs shown per second,
    // the key search's latency) is measured by `npm run bench` (bench/dashboard.ts), not here.
    const { cronql } = api;
    // 900 one-time jobs far ahead and 100 that fire every second (100 runs/s, 3 changes each).
    const specs = Array.from({ length: 1_000 }, (_, i) =>
      i < 100
        ? { key: `load-${String(i).padStart(4, '0')}`, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *', payload: { message: `load ${i}` } }
        : { key: `load-${String(i).padStart(4, '0')}`, target: 'log', scheduleType: ScheduleType.ONE_TIME, runAt: new Date('2099-01-01T00:00:00Z') },
    );
    // The every-second ones last, so the first page of jobs (newest first) is the busy one.
    specs.reverse();
    const busy: string[] = [];
    for (let i = 0; i < specs.length; i += 25) {
      const created = await Promise.all(specs.slice(i, i + 25).map((spec) => cronql.jobs.create(spec)));
      for (const job of created) if (job.scheduleType === ScheduleType.RECURRING) busy.push(job.id);
    }
    expect(busy).toHaveLength(100);
    try {
      await go('#/runs');
      await page.locator('[data-testid=runs-table] tbody tr[data-run-id]').first().waitFor();
      await page.evaluate(`(() => {
        window.__seenRuns = new Set();
        const body = document.querySelector('[data-testid=runs-table] tbody');
        new MutationObserver((records) => {
          for (const r of records) for (const n of r.addedNodes) if (n.dataset && n.dataset.runId) window.__seenRuns.add(n.dataset.runId);
        }).observe(body, { childList: true });
      })()`);
      // New runs keep appearing in Execution jobs, without a reload.
      await expect.poll(() => page.evaluate<number>('window.__seenRuns.size'), { timeout: 60_000 }).toBeGreaterThan(150);

      await go('#/jobs');
      await page.locator('select', { hasText: '200' }).last().selectOption('200');
      await expect.poll(() => page.locator('[data-testid=jobs-table] tbody tr[data-job-id]').count(), patient).toBe(200);
      expect(await page.locator('.pager-count').first().innerText()).toMatch(/of 100[0-9]$/);
      const lastRuns = () => page.locator('[data-testid=jobs-table] tbody tr[data-job-id] td.last-run').allInnerTexts();
      const before = (await lastRuns()).join('|');
      // Last runs move on, live.
      await expect.poll(async () => (await lastRuns()).join('|'), patient).not.toBe(before);

      // The key search goes through the API (keyContains), across all 1,000.
      await page.locator('input[name=key]').fill('LOAD-09');
      await expect.poll(() => page.locator('.pager-count').first().innerText(), patient).toMatch(/of 100$/);
    } finally {
      // Ten at a time: a hundred transactions at once on a busy machine outwait the ORM's pool.
      for (let i = 0; i < busy.length; i += 10) await Promise.all(busy.slice(i, i + 10).map((id) => cronql.jobs.pause(id, 'load test over')));
    }
  }, 180_000);

  it('writes a screenshot of each view', async () => {
    // A failing job too, so the views show a failure reason and a failure count.
    const failing = await api.cronql.jobs.create({ key: 'dash-failing', target: 'http', scheduleType: ScheduleType.RECURRING, cronExpression: '*/2 * * * * *', payload: { url: 'http://127.0.0.1:9/' } });
    try {
      await page.reload({ waitUntil: 'load' });
      await go('#/runs');
      await page.locator('[data-testid=runs-table] tbody tr[data-status=FAILED]').first().waitFor({ timeout: 15_000 });
      await shot('execution-jobs', false);
      await go('#/jobs');
      await page.locator('input[name=key]').fill('dash');
      // dash-every-second, dash-policies, dash-dst and dash-failing
      await expect.poll(() => page.locator('[data-testid=jobs-table] tbody tr[data-job-id]').count(), patient).toBe(4);
      await page.locator('[data-testid=jobs-table] tr[data-job-key=dash-failing] td.last-run .status-failed').waitFor();
      await shot('scheduled-jobs', false);
      await go('#/runs');
      await page.locator('[data-testid=runs-table] tbody tr[data-status=FAILED] a', { hasText: 'Details' }).first().click();
      await page.locator('[data-testid=failure-code]').waitFor();
      expect(await page.locator('[data-testid=failure-code]').innerText()).toBe('HTTP_BLOCKED');
      await shot('run-detail-failed');
    } finally {
      await api.cronql.jobs.pause(failing.id, 'screenshots taken');
    }
  }, 60_000);

  it('is operable with the keyboard alone', async () => {
    await go(`#/jobs/${jobId}`);
    await page.locator('article[data-job-id]').waitFor();
    await page.getByRole('button', { name: 'Retire…' }).waitFor();
    await page.evaluate('document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)');
    // Tab through the page: the views, the actions and the rows' links are all reached. Where the
    // first Tab starts depends on what had the focus before (and on what a live update replaced),
    // so Tab goes on, over the whole page more than once at most, until every one is reached.
    const names = ['Skip to content', 'Scheduled jobs', 'Execution jobs', 'Sign out', 'Resume', 'Run now…', 'New version…', 'Retire…'];
    const tabbable = await page.evaluate<number>("document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex=\"-1\"])').length");
    const reached: string[] = [];
    for (let i = 0; i < 2 * tabbable + 10 && !names.every((n) => reached.includes(n)); i += 1) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate<string>("(document.activeElement && (document.activeElement.getAttribute('aria-label') || document.activeElement.textContent || document.activeElement.tagName)).trim()"));
    }
    for (const name of names) {
      expect(reached).toContain(name);
    }
    // Enter opens a dialog, the focus is inside it, Escape closes it.
    await page.getByRole('button', { name: 'Run now…' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=run-now-dialog]').waitFor();
    expect(await page.evaluate<boolean>("!!document.activeElement.closest('dialog')")).toBe(true);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=run-now-dialog]').waitFor({ state: 'detached' });
  });

  it('a VIEWER sees no action buttons', async () => {
    const viewerRecorder: Recorder = { requests: [], websockets: [], problems: [] };
    const ctx = await recordingContext(browser, base, viewerRecorder, { viewport: { width: 1440, height: 900 } });
    try {
      const viewer = await ctx.newPage();
      await viewer.goto(dashboardLink(base, api.viewerToken), { waitUntil: 'load' });
      await viewer.locator('[data-testid=jobs-table] tbody tr[data-job-id]').first().waitFor();
      expect(await viewer.locator('[data-testid=role]').innerText()).toBe('VIEWER');
      const actionNames = /New job|Pause|Resume|Run now|New version|Retire|Cancel run/;
      expect(await viewer.getByRole('button', { name: actionNames }).count()).toBe(0);
      expect(await viewer.getByRole('link', { name: actionNames }).count()).toBe(0);
      await viewer.evaluate(`location.hash = '#/jobs/${jobId}'`);
      await viewer.locator('article[data-job-id]').waitFor();
      await viewer.locator('[data-testid=versions-table] tbody tr').first().waitFor();
      expect(await viewer.getByRole('button', { name: actionNames }).count()).toBe(0);
      expect(await viewer.getByRole('link', { name: actionNames }).count()).toBe(0);
      await viewer.evaluate(`location.hash = '#/runs'`);
      await viewer.locator('[data-testid=runs-table] tbody tr[data-run-id]').first().waitFor();
      expect(await viewer.getByRole('button', { name: actionNames }).count()).toBe(0);
      // No Tokens page in the header; its address says who the viewer is, and offers nothing.
      expect(await viewer.getByRole('link', { name: 'Tokens' }).count()).toBe(0);
      await viewer.evaluate(`location.hash = '#/tokens'`);
      expect(await viewer.locator('[data-testid=tokens-not-admin]').innerText()).toContain('viewer (VIEWER)');
      expect(await viewer.getByRole('button', { name: /Create token|Revoke/ }).count()).toBe(0);
      expect(await viewer.locator('[data-testid=tokens]').count()).toBe(0);
      expect(viewerRecorder.problems).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('an OPERATOR sees the everyday actions, not creating, versioning nor retiring', async () => {
    const { secret } = await api.cronql.tokens.create({ name: 'dashboard-operator', role: TokenRole.OPERATOR }, 'admin');
    const job = await api.cronql.jobs.create({ key: 'operator-page', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 9 * * *' });
    const operatorRecorder: Recorder = { requests: [], websockets: [], problems: [] };
    const ctx = await recordingContext(browser, base, operatorRecorder, { viewport: { width: 1440, height: 900 } });
    try {
      const operator = await ctx.newPage();
      await operator.goto(dashboardLink(base, secret), { waitUntil: 'load' });
      await operator.locator('[data-testid=jobs-table] tbody tr[data-job-id]').first().waitFor();
      expect(await operator.locator('[data-testid=role]').innerText()).toBe('OPERATOR');
      const adminOnly = /New job|New version|Retire/;
      expect(await operator.getByRole('button', { name: adminOnly }).count()).toBe(0);
      expect(await operator.getByRole('link', { name: adminOnly }).count()).toBe(0);
      await operator.evaluate(`location.hash = '#/jobs/${job.id}'`);
      const actions = operator.locator('article[data-job-id] [role=group]').first();
      await actions.getByRole('button', { name: /Run now/ }).waitFor();
      expect(await actions.getByRole('button', { name: /Pause|Resume/ }).count()).toBe(1);
      expect(await operator.getByRole('button', { name: adminOnly }).count()).toBe(0);
      expect(await operator.getByRole('link', { name: adminOnly }).count()).toBe(0);
      expect(operatorRecorder.problems).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('the calendars page: the rules, the jobs naming one, and a warning when its dated exclusions run out; a job shows its calendars', async () => {
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await api.cronql.calendars.set({ name: 'closing', timezone: 'Europe/Paris', dates: [soon], dailyWindows: [{ start: '22:00', end: '06:00', reason: 'batch' }] });
    const job = await api.cronql.jobs.create({ key: 'calendar-page', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 9 * * *', calendars: ['closing'] });
    await page.getByRole('link', { name: 'Calendars' }).click();
    const card = page.locator('[data-calendar=closing]');
    await card.waitFor();
    expect(await card.locator('[data-testid=runs-out-soon]').innerText()).toContain(`end on ${soon}`);
    expect(await card.locator('[data-testid=calendar-used-by]').innerText()).toBe('calendar-page v1');
    expect(await card.innerText()).toContain('22:00–06:00 (batch)');
    await shot('calendars');
    await go(`#/jobs/${job.id}`);
    await expect.poll(async () => page.locator('[data-testid=job-calendars]').innerText().catch(() => ''), patient).toBe('closing');
    await api.cronql.jobs.retire(job.id);
  });

  it('the pools page: each concurrency pool with its running and waiting runs, and the jobs in it', async () => {
    await api.cronql.pools.set('partner-api', 3);
    const job = await api.cronql.jobs.create({ key: 'pool-page', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 9 * * *', concurrencyPool: 'partner-api' } as never);
    await go('#/pools');
    const line = page.locator('[data-pool=partner-api]');
    await line.waitFor();
    expect(await line.locator('[data-testid=pool-running]').innerText()).toBe('0 / 3');
    expect(await line.locator('[data-testid=pool-waiting]').innerText()).toBe('0');
    expect(await line.innerText()).toContain('pool-page v1');
    await shot('pools');
    await api.cronql.jobs.retire(job.id);
  });

  it('the Tokens page (ADMIN): creates a token whose secret is shown once, the secret calls the API, revoked it is refused', async () => {
    await admin.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.getByRole('link', { name: 'Tokens' }).click();
    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Name').fill('dashboard-made');
    await form.getByLabel('Role').selectOption('VIEWER');
    await form.getByLabel('Label selector').fill('team=billing');
    await form.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.locator('[data-testid=token-secret-dialog]');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('you will not see it again');
    const secret = await dialog.locator('[data-testid=token-secret]').innerText();
    expect(secret).toMatch(/^cq_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await dialog.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await shot('tokens');
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'detached' });
    const line = page.locator('[data-token=dashboard-made]');
    await line.waitFor();
    expect(await line.innerText()).toContain('VIEWER');
    expect(await line.innerText()).toContain('team=billing');
    // Shown once: once the dialog is closed, the page holds it nowhere.
    expect(await page.content()).not.toContain(secret.slice(3));

    // The secret calls the API as the new token.
    const whoami = await gql(api.url, '{ whoami { name role labelSelector } }', {}, secret);
    expect(whoami.data).toEqual({ whoami: { name: 'dashboard-made', role: 'VIEWER', labelSelector: 'team=billing' } });

    // Revoke, confirmed: the row says when, and the API refuses the secret.
    await line.getByRole('button', { name: 'Revoke dashboard-made' }).click();
    const confirm = page.locator('[data-testid=revoke-token-dialog]');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(async () => line.locator('[data-testid=token-revoked] time').count(), patient).toBe(1);
    expect(await line.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    const refused = await gql(api.url, '{ whoami { name } }', {}, secret);
    expect(refused.status).toBe(401);
    expect(codes(refused)).toEqual(['TOKEN_REVOKED']);
  });

  it('made no request outside the test server, no CSP violation and no page error', async () => {
    const urls = [...recorder.requests.map((r) => r.url()), ...recorder.websockets];
    expect(urls.length).toBeGreaterThan(5);
    const httpBase = `${base}/`;
    const wsBase = `${base.replace(/^http/, 'ws')}/`;
    expect(urls.filter((u) => !u.startsWith(httpBase) && !u.startsWith(wsBase) && !/^(data|blob):/.test(u))).toEqual([]);
    for (const u of urls.filter((x) => x.startsWith(httpBase))) {
      expect(new URL(u).pathname).toMatch(/^\/(dashboard(\/assets\/[0-9a-f]{12}\/[\w.-]+)?|graphql)$/);
    }
    for (const r of recorder.requests) expect(r.url()).not.toContain(api.adminToken);
    expect(recorder.problems).toEqual([]);
  });
});
