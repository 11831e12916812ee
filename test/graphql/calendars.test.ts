import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { codes, gql, startApi, type Api } from './support.js';

/**
 * Calendars through the public API: set, read, replace, delete; the rules' validation with
 * generated bad inputs (as variables and as literals); a job's `calendars` (UNKNOWN_CALENDAR,
 * CALENDAR_IN_USE, generated forms of the argument), and the rule that a live job names only
 * calendars that exist, held by the database against a job write and a delete at the same moment.
 */
describe('calendars', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const as = (token: string) => <R>(query: string, variables?: Record<string, unknown>) => gql<R, unknown>(api.url, query, variables, token);
  const admin = <R>(query: string, variables?: Record<string, unknown>) => as(api.adminToken)<R>(query, variables);
  const CAL = `name timezone description dates yearly dailyWindows { start end reason } windows { from to reason } usedBy { key } lastDate runsOutSoon updatedBy`;
  const SET = `mutation($input: CalendarInput!) { setCalendar(input: $input) { ${CAL} } }`;
  const list = async () => (await admin<{ calendars: { name: string; dates: string[] }[] }>(`{ calendars { name dates } }`)).data!.calendars;
  const jobCount = async () => Number((await api.cronql.pool.query('SELECT count(*) AS n FROM cron_job_definitions')).rows[0].n);
  const createJob = (input: Record<string, unknown>) =>
    admin<{ createJob: { id: string; calendars: string[] } }>(`mutation($input: CreateJobInput!) { createJob(input: $input) { id calendars } }`, {
      input: { target: 'log', scheduleType: 'RECURRING', cronExpression: '0 9 * * 1-5', timezone: 'America/New_York', ...input },
    });

  it('sets, reads, replaces: VIEWER reads, only ADMIN writes', async () => {
    const input = {
      name: 'us-holidays',
      timezone: 'america/new_york',
      description: 'NYSE holidays',
      dates: ['2026-12-25', '2026-11-26'],
      yearly: ['01-01'],
      dailyWindows: [{ start: '22:00', end: '06:00', reason: 'batch' }],
      windows: [{ from: '2026-12-20T00:00:00Z', to: '2027-01-03T00:00:00Z', reason: 'freeze' }],
    };
    const res = await admin<{ setCalendar: Record<string, unknown> }>(SET, { input });
    expect(res.errors).toBeUndefined();
    expect(res.data!.setCalendar).toEqual({
      name: 'us-holidays',
      timezone: 'America/New_York',
      description: 'NYSE holidays',
      dates: ['2026-11-26', '2026-12-25'],
      yearly: ['01-01'],
      dailyWindows: [{ start: '22:00', end: '06:00', reason: 'batch' }],
      windows: [{ from: '2026-12-20T00:00:00.000Z', to: '2027-01-03T00:00:00.000Z', reason: 'freeze' }],
      usedBy: [],
      lastDate: '2027-01-02',
      runsOutSoon: expect.any(Boolean),
      updatedBy: 'admin',
    });
    const viewer = as(api.viewerToken);
    expect((await viewer<{ calendar: { name: string } }>(`{ calendar(name: "us-holidays") { name lastDate } }`)).data!.calendar.name).toBe('us-holidays');
    expect((await viewer<{ calendar: null }>(`{ calendar(name: "none") { name } }`)).data!.calendar).toBeNull();
    expect(codes(await viewer(SET, { input: { name: 'x' } }))).toEqual(['FORBIDDEN']);
    expect(codes(await viewer(`mutation { deleteCalendar(name: "us-holidays") }`))).toEqual(['FORBIDDEN']);
    // setCalendar replaces the whole calendar.
    const replaced = await admin<{ setCalendar: Record<string, unknown> }>(SET, { input: { name: 'us-holidays', dates: ['2027-01-01'] } });
    expect(replaced.data!.setCalendar).toMatchObject({ timezone: 'UTC', description: null, dates: ['2027-01-01'], yearly: [], dailyWindows: [], windows: [], lastDate: '2027-01-01' });
    await admin(SET, { input });
  });

  it('refuses every generated bad calendar, as a variable and as a literal, and changes nothing', async () => {
    const before = JSON.stringify(await list());
    const bad: [string, Record<string, unknown>, string][] = [
      ['dates 02-30', { dates: ['2026-02-30'] }, 'BAD_USER_INPUT'],
      ['dates not a day', { dates: ['tomorrow'] }, 'BAD_USER_INPUT'],
      ['dates before 1970', { dates: ['1969-12-31'] }, 'BAD_USER_INPUT'],
      ['yearly 02-30', { yearly: ['02-30'] }, 'BAD_USER_INPUT'],
      ['yearly 13-01', { yearly: ['13-01'] }, 'BAD_USER_INPUT'],
      ['daily 25:00', { dailyWindows: [{ start: '25:00', end: '06:00' }] }, 'BAD_USER_INPUT'],
      ['daily 12:60', { dailyWindows: [{ start: '09:00', end: '12:60' }] }, 'BAD_USER_INPUT'],
      ['daily start = end', { dailyWindows: [{ start: '09:00', end: '09:00' }] }, 'BAD_USER_INPUT'],
      ['window from > to', { windows: [{ from: '2026-12-02T00:00:00Z', to: '2026-12-01T00:00:00Z' }] }, 'BAD_USER_INPUT'],
      ['window from = to', { windows: [{ from: '2026-12-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }] }, 'BAD_USER_INPUT'],
      ['unknown zone', { timezone: 'Mars/Olympus' }, 'INVALID_TIMEZONE'],
      ['offset zone', { timezone: '+02:00' }, 'INVALID_TIMEZONE'],
      ['name with a space', { name: 'us holidays' }, 'BAD_USER_INPUT'],
      ['empty name', { name: '' }, 'BAD_USER_INPUT'],
      ['name too long', { name: 'x'.repeat(65) }, 'BAD_USER_INPUT'],
      ['NUL in a reason', { dailyWindows: [{ start: '01:00', end: '02:00', reason: 'a\u0000b' }] }, 'BAD_USER_INPUT'],
      ['too many dates', { dates: Array.from({ length: 1001 }, (_, i) => new Date(Date.UTC(2030, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)) }, 'BAD_USER_INPUT'],
    ];
    for (const [what, fields, code] of bad) {
      const input = { name: 'bad-one', ...fields };
      expect(codes(await admin(SET, { input })), `${what} (variable)`).toEqual([code]);
    }
    // The same inputs written in the document: a bad LocalDate or DateTime fails validation.
    const literal = (fields: string) => admin(`mutation { setCalendar(input: { name: "bad-one", ${fields} }) { name } }`);
    expect(codes(await literal('dates: ["2026-02-30"]'))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes(await literal('yearly: ["02-30"]'))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await literal('dailyWindows: [{ start: "25:00", end: "06:00" }]'))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await literal('windows: [{ from: "2026-12-02T00:00:00Z", to: "2026-12-01T00:00:00Z" }]'))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await literal('timezone: "Mars/Olympus"'))).toEqual(['INVALID_TIMEZONE']);
    expect(JSON.stringify(await list())).toBe(before);
  });

  it('a job names calendars that exist: UNKNOWN_CALENDAR, bad names and every form of the argument', async () => {
    await admin(SET, { input: { name: 'freeze', windows: [{ from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }] } });
    const before = await jobCount();
    const refused: [string, unknown, string][] = [
      ['an unknown name', ['no-such-calendar'], 'UNKNOWN_CALENDAR'],
      ['one known, one unknown', ['freeze', 'missing'], 'UNKNOWN_CALENDAR'],
      ['a name out of shape', ['has space'], 'BAD_USER_INPUT'],
      ['an empty name', [''], 'BAD_USER_INPUT'],
      ['over the cap', Array.from({ length: 11 }, (_, i) => `c${i}`), 'BAD_USER_INPUT'],
    ];
    for (const [what, calendars, code] of refused) {
      const res = await createJob({ key: `cal-bad-${what.replace(/\W+/g, '-')}`, calendars });
      expect(codes(res), what).toEqual([code]);
      if (code === 'UNKNOWN_CALENDAR') expect(res.errors![0].extensions).toMatchObject({ details: { field: 'calendars' } });
    }
    // As a literal, too.
    const literal = await admin(`mutation { createJob(input: { key: "cal-lit", target: "log", scheduleType: RECURRING, cronExpression: "* * * * *", calendars: ["nope"] }) { id } }`);
    expect(codes(literal)).toEqual(['UNKNOWN_CALENDAR']);
    // A one-time job has no use for a calendar.
    expect(codes(await admin(`mutation { createJob(input: { key: "cal-once", target: "log", scheduleType: ONE_TIME, runAt: "2030-01-01T00:00:00Z", calendars: ["freeze"] }) { id } }`))).toEqual(['BAD_USER_INPUT']);
    // createJobs names the input.
    const many = await admin(`mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { id } }`, {
      inputs: [
        { key: 'cal-many-1', target: 'log', scheduleType: 'RECURRING', cronExpression: '* * * * *', calendars: ['freeze'] },
        { key: 'cal-many-2', target: 'log', scheduleType: 'RECURRING', cronExpression: '* * * * *', calendars: ['gone'] },
      ],
    });
    expect(codes(many)).toEqual(['UNKNOWN_CALENDAR']);
    expect(many.errors![0]).toMatchObject({ message: expect.stringContaining('job "cal-many-2" (input 2)'), extensions: { details: { index: 1, calendar: 'gone' } } });
    expect(await jobCount()).toBe(before);
    // Omitted, null and empty: none; duplicates once; the order kept.
    for (const [key, calendars, expected] of [
      ['cal-omitted', undefined, []],
      ['cal-null', null, []],
      ['cal-empty', [], []],
      ['cal-two', ['us-holidays', 'freeze', 'us-holidays'], ['us-holidays', 'freeze']],
    ] as const) {
      const res = await createJob({ key, ...(calendars === undefined ? {} : { calendars }) });
      expect(res.errors, key).toBeUndefined();
      expect(res.data!.createJob.calendars).toEqual(expected);
    }
  });

  it('a new version keeps the calendars unless given; UNKNOWN_CALENDAR changes nothing', async () => {
    const job = (await createJob({ key: 'cal-version', calendars: ['freeze'] })).data!.createJob;
    const version = (id: string, input: Record<string, unknown>) =>
      admin<{ createJobVersion: { id: string; calendars: string[] } }>(`mutation($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { id calendars } }`, { id, input });
    const kept = await version(job.id, { cronExpression: '0 10 * * 1-5' });
    expect(kept.data!.createJobVersion.calendars).toEqual(['freeze']);
    const before = await jobCount();
    expect(codes(await version(kept.data!.createJobVersion.id, { calendars: ['missing'] }))).toEqual(['UNKNOWN_CALENDAR']);
    expect(await jobCount()).toBe(before);
    const cleared = await version(kept.data!.createJobVersion.id, { calendars: null });
    expect(cleared.data!.createJobVersion.calendars).toEqual([]);
  });

  it('deleteCalendar: CALENDAR_IN_USE while a live job names it, false for none, BAD_USER_INPUT for a bad name', async () => {
    await admin(SET, { input: { name: 'in-use', dates: ['2030-05-01'] } });
    const job = (await createJob({ key: 'cal-user', calendars: ['in-use'] })).data!.createJob;
    const usedBy = await admin<{ calendar: { usedBy: { key: string }[] } }>(`{ calendar(name: "in-use") { usedBy { key } } }`);
    expect(usedBy.data!.calendar.usedBy).toEqual([{ key: 'cal-user' }]);
    const refused = await admin(`mutation { deleteCalendar(name: "in-use") }`);
    expect(codes(refused)).toEqual(['CALENDAR_IN_USE']);
    expect(refused.errors![0].extensions).toMatchObject({ details: { calendar: 'in-use', job: 'cal-user' } });
    expect((await list()).map((c) => c.name)).toContain('in-use');
    // Paused, it is still used; retired, no longer.
    await admin(`mutation($id: ID!) { pauseJob(id: $id, reason: "r") { id } }`, { id: job.id });
    expect(codes(await admin(`mutation { deleteCalendar(name: "in-use") }`))).toEqual(['CALENDAR_IN_USE']);
    await admin(`mutation($id: ID!) { retireJob(id: $id) { id } }`, { id: job.id });
    expect((await admin<{ deleteCalendar: boolean }>(`mutation { deleteCalendar(name: "in-use") }`)).data!.deleteCalendar).toBe(true);
    expect((await admin<{ deleteCalendar: boolean }>(`mutation { deleteCalendar(name: "in-use") }`)).data!.deleteCalendar).toBe(false);
    for (const name of ['', 'has space', 'x'.repeat(65)]) expect(codes(await admin(`mutation($n: String!) { deleteCalendar(name: $n) }`, { n: name }))).toEqual(['BAD_USER_INPUT']);
  });

  it('the database holds it against a job write and a delete at the same moment, whichever locks first', async () => {
    await admin(SET, { input: { name: 'raced' } });
    const connect = async () => {
      const c = new pg.Client({ connectionString: api.cronql.databaseUrl });
      await c.connect();
      return c;
    };
    const [writer, deleter] = await Promise.all([connect(), connect()]);
    const pidOf = async (c: pg.Client) => (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const [writerPid, deleterPid] = await Promise.all([pidOf(writer), pidOf(deleter)]);
    /** Until the backend waits on a lock held by the other transaction. */
    const waitingOnLock = (pid: number) =>
      eventually(async () => (await api.cronql.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid])).rowCount);
    const insertJob = (key: string) =>
      writer.query(
        `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, calendars)
         VALUES (gen_random_uuid(), $1, 1, 'log', 'RECURRING', '* * * * *', ARRAY['raced'])`,
        [key],
      );
    try {
      // The job's transaction first: the delete waits for it, then sees the job.
      await writer.query('BEGIN');
      await insertJob('raced-first');
      const deleting = deleter.query(`DELETE FROM cron_calendars WHERE name = 'raced'`).then(
        () => 'deleted',
        (err: { constraint?: string }) => err.constraint,
      );
      await waitingOnLock(deleterPid);
      await writer.query('COMMIT');
      expect(await deleting).toBe('cron_calendars_in_use');
      await writer.query(`UPDATE cron_job_definitions SET status = 'RETIRED' WHERE job_key = 'raced-first'`);
      // The delete first: the job's write waits for it, then finds no calendar.
      await deleter.query('BEGIN');
      await deleter.query(`DELETE FROM cron_calendars WHERE name = 'raced'`);
      const writing = insertJob('raced-second').then(
        () => 'written',
        (err: { constraint?: string }) => err.constraint,
      );
      await waitingOnLock(writerPid);
      await deleter.query('COMMIT');
      expect(await writing).toBe('cron_job_definitions_calendars_known');
      const live = await api.cronql.pool.query(`SELECT count(*)::int AS n FROM cron_job_definitions WHERE status <> 'RETIRED' AND 'raced' = ANY (calendars)`);
      expect(live.rows[0].n).toBe(0);
    } finally {
      await Promise.all([writer.end(), deleter.end()]);
    }
  });
});
