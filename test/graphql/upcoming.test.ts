import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import type { JobRecord } from '../../src/domain/job.js';
import { jitterOffsetMs } from '../../src/schedule/jitter.js';
import { gql, startApi, type Api } from './support.js';

/**
 * `upcoming` against a reference built another way: the union, over the generated jobs (one cron
 * expression, several, an interval, a one-time job), of each job's `previewSchedule` (the pure
 * preview, asked over GraphQL) less what the job's state and calendars remove — a pause until an
 * instant, the slots asked skipped, its start/end bounds, its maxRuns, and the slots its calendars
 * exclude, read here from each rule's definition with the wall clock of the calendar's zone —
 * paged through with cursors of random sizes: no slot lost, none twice, the order (slot, job id).
 */
const NOW = '2026-03-07T12:00:00.000Z'; // the day before the US spring-forward
const HOUR = 3_600_000;

/** A small deterministic generator (mulberry32): the same jobs every run, varied. */
function random(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The exclusion calendars the generated jobs pick from, each with its rule read independently:
 * the local day or the local time of day of an instant, as the zone's clock shows it (no window
 * edge lies in an hour a DST change skips or repeats, where the definition needs more care).
 */
const wall = (zone: string, at: number) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, minute: Number(parts.hour) * 60 + Number(parts.minute) };
};
const CALENDARS = [
  { input: { name: 'gen-holiday', timezone: 'America/New_York', dates: ['2026-03-08'] }, excludes: (t: number) => wall('America/New_York', t).day === '2026-03-08' },
  { input: { name: 'gen-lunch', timezone: 'Europe/Berlin', dailyWindows: [{ start: '12:00', end: '13:30' }] }, excludes: (t: number) => { const m = wall('Europe/Berlin', t).minute; return m >= 720 && m < 810; } },
  { input: { name: 'gen-night', timezone: 'Asia/Kolkata', dailyWindows: [{ start: '22:00', end: '06:00' }] }, excludes: (t: number) => { const m = wall('Asia/Kolkata', t).minute; return m >= 1320 || m < 360; } },
  {
    input: { name: 'gen-freeze', timezone: 'UTC', windows: [{ from: new Date(Date.parse(NOW) + 10 * HOUR), to: new Date(Date.parse(NOW) + 14 * HOUR + 30 * 60_000) }] },
    excludes: (t: number) => t >= Date.parse(NOW) + 10 * HOUR && t < Date.parse(NOW) + 14 * HOUR + 30 * 60_000,
  },
];

const PREVIEW = `query($cronExpression: String, $cronExpressions: [String!], $every: String, $anchorAt: DateTime, $timezone: String, $from: DateTime) {
  previewSchedule(cronExpression: $cronExpression, cronExpressions: $cronExpressions, every: $every, anchorAt: $anchorAt, timezone: $timezone, from: $from, count: 100)
}`;

describe('upcoming', () => {
  let api: Api;
  let cronql: Cronql;
  const clock = new ManualClock(NOW);
  const jobs: JobRecord[] = [];

  beforeAll(async () => {
    // An API-only instance: nothing fires, the jobs' state is what the test made it.
    api = await startApi({ clock, role: 'api' });
    cronql = api.cronql;
    for (const c of CALENDARS) await cronql.calendars.set(c.input);
    const rnd = random(26);
    const pick = <T,>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const expressions = ['*/7 * * * *', '0 * * * *', '30 2 * * *', '15 */3 * * *', '0 9 * * 1-5', '10 */5 * * * *', '0 0 * * 0', '45 1,2,3 * * *'];
    const intervals = ['45m', '20m', '1h30m', '7h', 'PT50M'];
    const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'];
    const now = clock.now().getTime();
    for (let i = 0; i < 48; i++) {
      const kind = i % 12 === 11 ? 'ONE_TIME' : i % 4 === 1 ? 'INTERVAL' : i % 4 === 2 ? 'SEVERAL' : 'CRON';
      const bounded = kind !== 'ONE_TIME';
      const startAt = bounded && rnd() < 0.15 ? new Date(now + Math.floor(rnd() * 20) * HOUR) : null;
      const input = {
        key: `gen-${i}`,
        target: 'log',
        scheduleType: kind === 'ONE_TIME' ? ScheduleType.ONE_TIME : kind === 'INTERVAL' ? ScheduleType.INTERVAL : ScheduleType.RECURRING,
        cronExpression: kind === 'CRON' ? pick(expressions) : null,
        // Distinct expressions whose instants meet at times ('0 * * * *' and '0 9 * * 1-5'): each instant once.
        cronExpressions: kind === 'SEVERAL' ? [...new Set([pick(expressions), pick(expressions), pick(expressions)])] : null,
        every: kind === 'INTERVAL' ? pick(intervals) : null,
        anchorAt: kind === 'INTERVAL' ? new Date(now - Math.floor(rnd() * 86_400) * 1000) : null,
        runAt: kind === 'ONE_TIME' ? new Date(now + Math.floor(rnd() * 30) * HOUR + 1000) : null,
        timezone: pick(zones),
        jitterSeconds: rnd() < 0.3 ? 10 : 0,
        startAt,
        endAt: bounded && rnd() < 0.15 ? new Date((startAt?.getTime() ?? now) + Math.floor(2 + rnd() * 20) * HOUR) : null,
        maxRuns: bounded && rnd() < 0.15 ? 1 + Math.floor(rnd() * 30) : null,
        calendars: bounded && rnd() < 0.4 ? [...new Set([pick(CALENDARS).input.name, pick(CALENDARS).input.name])] : null,
      };
      // Bounds around no slot of the schedule are refused (INVALID_SCHEDULE): then without its end.
      const created = await cronql.jobs.create(input as never).catch((err: { code?: string }) => {
        if (err.code !== 'INVALID_SCHEDULE' || !input.endAt) throw err;
        return cronql.jobs.create({ ...input, endAt: null } as never);
      });
      let job = created;
      const state = rnd();
      if (state < 0.15) job = await cronql.jobs.pause(job.id, 'until later', 'admin', new Date(now + Math.floor(1 + rnd() * 30) * HOUR + 500));
      else if (state < 0.25) job = await cronql.jobs.pause(job.id, 'for good', 'admin');
      else if (state < 0.4) job = await cronql.jobs.skipNext(job.id, 1 + Math.floor(rnd() * 5), 'skip some', 'admin');
      jobs.push(job);
    }
    // A retired job has no slot.
    const retired = await cronql.jobs.create({ key: 'retired', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *' });
    await cronql.jobs.retire(retired.id);
  });
  afterAll(async () => {
    await api?.close();
  });

  /** A job's previewSchedule from just before now up to `to`, a page of 100 at a time. */
  async function preview(job: JobRecord, to: Date): Promise<number[]> {
    if (job.scheduleType === ScheduleType.ONE_TIME) return [job.runAt!.getTime()];
    const several = (job.cronExpressions?.length ?? 0) > 1;
    const vars = job.scheduleType === ScheduleType.INTERVAL
      ? { every: `${job.everyMs! / 1000}s`, anchorAt: job.anchorAt!.toISOString() }
      : several ? { cronExpressions: job.cronExpressions, timezone: job.timezone } : { cronExpression: job.cronExpression, timezone: job.timezone };
    const out: number[] = [];
    let from = new Date(clock.now().getTime() - 1);
    for (;;) {
      const res = await gql<{ previewSchedule: string[] }, Record<string, unknown>>(api.url, PREVIEW, { ...vars, from: from.toISOString() }, api.adminToken);
      expect(res.errors).toBeUndefined();
      const page = res.data!.previewSchedule.map((d) => Date.parse(d));
      out.push(...page);
      if (page.length < 100 || page[page.length - 1] > to.getTime()) return out;
      from = new Date(page[page.length - 1]);
    }
  }

  /** The reference: each job's preview in [from, to], less what its state and calendars remove. */
  async function reference(from: Date, to: Date): Promise<string[]> {
    const out: { at: number; id: string }[] = [];
    const now = clock.now();
    for (const job of jobs) {
      if (job.status === 'PAUSED' && !job.pausedUntil) continue;
      const raw = await preview(job, to);
      const calendars = CALENDARS.filter((c) => job.calendars.includes(c.input.name));
      // Shown from the pause's end; skips and runs left count from the first slot after now (or the pause's end).
      const start = job.pausedUntil ? Math.max(now.getTime(), job.pausedUntil.getTime()) : now.getTime();
      const countFrom = job.pausedUntil ? Math.max(now.getTime() + 1, job.pausedUntil.getTime()) : now.getTime() + 1;
      let skips = job.skipRemaining;
      let left = job.maxRuns ?? Infinity; // nothing ran: an api-only instance fires nothing
      for (const t of raw) {
        if (left <= 0 || t > to.getTime()) break;
        if ((job.startAt && t < job.startAt.getTime()) || (job.endAt && t > job.endAt.getTime())) continue;
        if (calendars.some((c) => c.excludes(t))) continue; // a CALENDAR row: neither a skip nor a run
        if (t >= countFrom) {
          if (skips > 0) {
            skips--;
            continue;
          }
          left--;
        }
        if (t >= from.getTime() && t >= start) out.push({ at: t, id: job.id });
      }
    }
    out.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out.map((s) => `${new Date(s.at).toISOString()} ${s.id}`);
  }

  it('agrees with the union of each job\'s previewSchedule less its pause, skips, bounds, maxRuns and calendars, paged through with cursors', async () => {
    // The generator made every kind of job and state this compares.
    const kinds = new Set(jobs.map((j) => (j.cronExpressions?.length ?? 0) > 1 ? 'several' : j.scheduleType));
    expect([...kinds].sort()).toEqual(['INTERVAL', 'ONE_TIME', 'RECURRING', 'several']);
    for (const c of CALENDARS) expect(jobs.some((j) => j.status === 'ACTIVE' && j.calendars.includes(c.input.name))).toBe(true);
    expect(jobs.some((j) => j.maxRuns !== null && j.status === 'ACTIVE')).toBe(true);
    const rnd = random(7);
    for (const [from, to] of [
      [new Date(NOW), new Date(Date.parse(NOW) + 30 * HOUR)],
      [new Date(Date.parse(NOW) + 5 * HOUR + 1), new Date(Date.parse(NOW) + 20 * HOUR)],
    ] as const) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 10_000; pages++) {
        const page = await cronql.upcoming.page({ from, to, first: 1 + Math.floor(rnd() * 400), after });
        for (const n of page.nodes) {
          seen.push(`${n.slot.toISOString()} ${n.jobId}`);
          const jitter = jobs.find((j) => j.id === n.jobId)!.jitterSeconds;
          expect(n.dueAt.getTime() - n.slot.getTime()).toBe(jitterOffsetMs(n.jobId, n.slot, jitter));
        }
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      const expected = await reference(from, to);
      expect(expected.length).toBeGreaterThan(100);
      expect(seen).toEqual(expected);
    }
  });

  it('sees a job changed since the last request (the job-change notification), and filters', async () => {
    const from = new Date(NOW);
    const to = new Date(Date.parse(NOW) + 2 * HOUR);
    const filter = { keyContains: 'LATE-' };
    expect((await cronql.upcoming.page({ from, to, filter })).nodes).toEqual([]);
    const job = await cronql.jobs.create({ key: 'late-comer', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 13 * * *' });
    const after = await cronql.upcoming.page({ from, to, filter });
    expect(after.nodes.map((n) => [n.jobId, n.slot.toISOString()])).toEqual([[job.id, '2026-03-07T13:00:00.000Z']]);
    expect((await cronql.upcoming.page({ from, to, filter: { ...filter, target: 'http' } })).nodes).toEqual([]);
    await cronql.jobs.pause(job.id, 'gone again', 'admin');
    expect((await cronql.upcoming.page({ from, to, filter })).nodes).toEqual([]);
  });

  it('first: literal, variable, null, omitted, 0, over the cap; a bad cursor, a window backwards', async () => {
    const to = new Date(Date.parse(NOW) + 48 * HOUR).toISOString();
    const count = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await gql<{ upcoming: { nodes: { slot: string }[]; pageInfo: { hasNextPage: boolean } } }, Record<string, unknown>>(api.url, query, { to, ...variables }, api.adminToken);
      return res.errors ? res.errors[0].extensions?.code : res.data!.upcoming.nodes.length;
    };
    const q = (args: string) => {
      const vars = [args.includes('$n') ? ', $n: Int' : '', args.includes('$after') ? ', $after: String' : ''].join('');
      return `query($to: DateTime!${vars}) { upcoming(to: $to${args}) { nodes { slot dueAt job { key } } pageInfo { hasNextPage endCursor } } }`;
    };
    expect(await count(q(''))).toBe(50); // omitted: the default
    expect(await count(q(', first: 7'))).toBe(7); // literal
    expect(await count(q(', first: $n'), { n: 9 })).toBe(9); // variable
    expect(await count(q(', first: $n'), { n: null })).toBe(50); // null: the default
    expect(await count(q(', first: null'))).toBe(50);
    expect(await count(q(', first: 0'))).toBe(0);
    expect(await count(q(', first: 501'))).toBe(500); // capped, as every page of the API
    expect(await count(q(', first: $n'), { n: 501 })).toBe(500);
    expect(await count(q(', first: -1'))).toBe('BAD_USER_INPUT');
    expect(await count(q(', after: $after'), { after: 'not-a-cursor' })).toBe('BAD_USER_INPUT');
    expect(await count(q(', from: "2026-03-10T00:00:00Z"'))).toBe('BAD_USER_INPUT'); // to before from
  });

  it("leaves out the slots a job's calendars exclude, in upcoming, nextRuns and nextRunAt, and follows a calendar changed (an api instance keeps its own calendars)", async () => {
    await cronql.calendars.set({ name: 'up-lunch', timezone: 'UTC', dailyWindows: [{ start: '13:00', end: '15:00', reason: 'lunch' }] });
    const job = await cronql.jobs.create({ key: 'cal-hourly', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 * * * *', calendars: ['up-lunch'] } as never);
    const from = new Date(Date.parse(NOW) + HOUR / 2); // 12:30
    const to = new Date(Date.parse(NOW) + 6 * HOUR); // 18:00
    const filter = { keyContains: 'cal-hourly' };
    const timeline = async () => (await cronql.upcoming.page({ from, to, filter })).nodes.map((n) => n.slot.toISOString().slice(11, 16));
    const nextRuns = async () => {
      const res = await gql<{ job: { nextRunAt: string; nextRuns: string[] } }, { id: string }>(api.url, 'query($id: ID!) { job(id: $id) { nextRunAt nextRuns(count: 4) } }', { id: job.id }, api.adminToken);
      // nextRunAt is the first of them.
      return [res.data!.job.nextRunAt, ...res.data!.job.nextRuns].map((d) => d.slice(11, 16));
    };
    expect(await timeline()).toEqual(['15:00', '16:00', '17:00', '18:00']);
    expect(await nextRuns()).toEqual(['15:00', '15:00', '16:00', '17:00', '18:00']);
    // The window moves: both follow once the change has reached this instance (its notification).
    await cronql.calendars.set({ name: 'up-lunch', timezone: 'UTC', dailyWindows: [{ start: '15:00', end: '17:00', reason: 'late lunch' }] });
    await expect.poll(timeline, { timeout: 30_000 }).toEqual(['13:00', '14:00', '17:00', '18:00']);
    await expect.poll(nextRuns, { timeout: 30_000 }).toEqual(['13:00', '13:00', '14:00', '17:00', '18:00']);
  });
});
