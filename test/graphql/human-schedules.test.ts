import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, startApi, type Api } from './support.js';

/** Schedules people can read and write, through the API: describeSchedule, parseSchedule, Job.scheduleDescription, long previews. */
describe('human schedules over GraphQL', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());
  const q = <R>(query: string, variables?: Record<string, unknown>) => gql<R, unknown>(api.url, query, variables, api.viewerToken);
  const describeIt = async (cronExpression: string, timezone?: string) =>
    (await q<{ describeSchedule: string }>(`query($c: String!, $z: String) { describeSchedule(cronExpression: $c, timezone: $z) }`, { c: cronExpression, z: timezone }));

  it('describeSchedule: English, the zone, and what DST does where it matters', async () => {
    expect((await describeIt('0 9 * * 1-5')).data!.describeSchedule).toBe('At 09:00, Monday through Friday');
    expect((await describeIt('*/10 * * * * *')).data!.describeSchedule).toBe('Every 10 seconds');
    expect((await describeIt('0 0 L * *')).data!.describeSchedule).toBe('At 00:00, on the last day of the month');
    const gap = (await describeIt('30 2 * * *', 'America/New_York')).data!.describeSchedule;
    expect(gap).toBe('At 02:30 (America/New_York time); on the day the clocks spring forward, a time they skip runs as much later as they jumped');
    const repeated = (await describeIt('30 1 * * *', 'America/New_York')).data!.describeSchedule;
    expect(repeated).toMatch(/a repeated time runs once, at its first occurrence$/);
    expect((await describeIt('*/30 * * * *', 'Europe/Berlin')).data!.describeSchedule).toMatch(/the repeated hour runs twice$/);
    expect((await describeIt('0 12 * * *', 'Europe/Berlin')).data!.describeSchedule).toBe('At 12:00 (Europe/Berlin time)');
    expect((await describeIt('not cron')).errors?.[0]?.extensions?.code).toBe('INVALID_CRON_EXPRESSION');
    expect((await describeIt('0 9 * * *', 'Mars/Olympus')).errors?.[0]?.extensions?.code).toBe('INVALID_TIMEZONE');
  });

  it('parseSchedule: the expression, the zone named, a description and the next five slots', async () => {
    const res = await q<{ parseSchedule: { cronExpression: string; timezone: string; description: string; next: string[] } }>(
      `{ parseSchedule(text: "every weekday at 9am in Europe/Berlin") { cronExpression timezone description next } }`,
    );
    const parsed = res.data!.parseSchedule;
    expect(parsed).toMatchObject({ cronExpression: '0 9 * * 1-5', timezone: 'Europe/Berlin', description: 'At 09:00, Monday through Friday (Europe/Berlin time)' });
    expect(parsed.next).toHaveLength(5);
    for (const at of parsed.next) {
      const d = new Date(at);
      expect([7, 8]).toContain(d.getUTCHours()); // 09:00 CEST or CET
      expect([1, 2, 3, 4, 5]).toContain(d.getUTCDay());
    }
    const refused = await q(`{ parseSchedule(text: "whenever it suits") { cronExpression } }`);
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNPARSEABLE_SCHEDULE');
    expect(refused.errors?.[0]?.message).toContain('every weekday at 9am');
    const zoneArg = await q<{ parseSchedule: { timezone: string } }>(`{ parseSchedule(text: "hourly", timezone: "asia/tokyo") { timezone } }`);
    expect(zoneArg.data!.parseSchedule.timezone).toBe('Asia/Tokyo');
  });

  it('Job.scheduleDescription beside the expression; null for a one-time job', async () => {
    const made = await gql<{ createJob: { scheduleDescription: string } }, unknown>(
      api.url,
      `mutation { createJob(input: { key: "desc", target: "log", scheduleType: RECURRING, cronExpression: "0 9 * * MON#1", timezone: "Europe/Paris" }) { scheduleDescription } }`,
      undefined,
      api.adminToken,
    );
    expect(made.data!.createJob.scheduleDescription).toBe('At 09:00, on the first Monday of the month (Europe/Paris time)');
    const once = await gql<{ createJob: { scheduleDescription: string | null } }, unknown>(
      api.url,
      `mutation($at: DateTime!) { createJob(input: { key: "once", target: "log", scheduleType: ONE_TIME, runAt: $at }) { scheduleDescription } }`,
      { at: new Date(Date.now() + 3_600_000).toISOString() },
      api.adminToken,
    );
    expect(once.data!.createJob.scheduleDescription).toBeNull();
  });

  it('previewSchedule returns every slot asked for, however far: 0 0 29 2 * from 2020, count 25, crosses 2100', async () => {
    const res = await q<{ previewSchedule: string[] }>(`{ previewSchedule(cronExpression: "0 0 29 2 *", from: "2020-01-01T00:00:00Z", count: 25) }`);
    const years = res.data!.previewSchedule.map((d) => Number(d.slice(0, 4)));
    expect(years).toHaveLength(25);
    expect(years.slice(0, 3)).toEqual([2020, 2024, 2028]);
    expect(years).not.toContain(2100); // not a leap year
    expect(years.slice(19, 21)).toEqual([2096, 2104]);
  });
});
