import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import type { RunChange } from '../../src/domain/run.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { gql, startApi, type Api } from '../graphql/support.js';
import { eventually } from '../support/cronql.js';

/**
 * `startedAt` is the instant the run's handler was entered (docs/glossary.md): after the claim
 * committed, at or before anything the handler itself can see, and the one value the row, the
 * RUNNING change and every lateness figure hold.
 */
describe('startedAt', () => {
  describe('on the system clock', () => {
    let api: Api;
    /** The handler's own first reading of the clock, by run id. */
    const stamps = new Map<string, number>();
    const release = new Set<() => void>();
    beforeAll(async () => {
      api = await startApi({
        instanceId: 'started-at',
        targets: {
          quick: ({ run }) => void stamps.set(run.id, Date.now()),
          // Still running well after its entry: its startedAt gets a write of its own.
          held: ({ run }) => {
            stamps.set(run.id, Date.now());
            return new Promise<void>((r) => release.add(r));
          },
        },
      });
    });
    afterAll(async () => {
      for (const r of release) r();
      await api.close();
    });

    it('claim committed ≤ startedAt ≤ the handler’s own stamp; the row and the RUNNING change say the same', async () => {
      const { cronql } = api;
      const answered = new Map<string, number>(); // the fire statement's answer reached the fire path (after its commit)
      cronql.runtimeEvents.on('slotRecorded', (e) => e.runId && answered.set(e.runId, Date.now()));
      const changes: RunChange[] = [];
      cronql.events.on((c) => changes.push(c));
      const quick = await cronql.jobs.create({ key: 'quick', target: 'quick', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
      const held = await cronql.jobs.create({ key: 'held', target: 'held', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
      const running = (jobId: string) => changes.find((c) => c.run.jobId === jobId && c.run.status === 'RUNNING');
      const ended = (jobId: string) => changes.find((c) => c.run.jobId === jobId && c.previousStatus === 'RUNNING');

      // The held run is announced RUNNING while its handler still runs, after its startedAt was written.
      const heldStart = await eventually(() => running(held.id), 30_000);
      const heldRow = await cronql.runs.get(heldStart.run.id);
      expect(heldRow?.status).toBe('RUNNING');
      await cronql.jobs.pause(held.id, 'test done');
      await cronql.jobs.pause(quick.id, 'test done');
      await eventually(() => ended(quick.id), 30_000);
      const quickStart = running(quick.id)!;
      const quickRow = await cronql.runs.get(quickStart.run.id);

      for (const [change, row] of [
        [heldStart, heldRow!],
        [quickStart, quickRow!],
      ] as const) {
        const startedAt = change.run.startedAt!.getTime();
        const stamp = stamps.get(change.run.id)!;
        expect(answered.get(change.run.id)).toBeLessThanOrEqual(startedAt);
        expect(startedAt).toBeLessThanOrEqual(stamp);
        expect(stamp - startedAt).toBeLessThan(5_000); // generous: a busy machine
        expect(row.startedAt?.getTime()).toBe(startedAt);
        expect(change.changedAt.getTime()).toBe(startedAt);
      }
      // A run's RUNNING is told before its end.
      const quickChanges = changes.filter((c) => c.run.id === quickStart.run.id).map((c) => c.run.status);
      expect(quickChanges).toEqual(['PENDING', 'RUNNING', 'SUCCEEDED']);
      expect(quickRow?.startedAt?.getTime()).toBe(quickStart.run.startedAt!.getTime());
    });
  });

  describe('a run-now', () => {
    let api: Api;
    const stamps = new Map<string, number>();
    beforeAll(async () => {
      // The handler's own first reading of the clock.
      api = await startApi({ instanceId: 'started-at-now', targets: { stamped: ({ run }) => void stamps.set(run.id, Date.now()) } });
    });
    afterAll(async () => api.close());

    it('runJobNow answers the startedAt its row and its RUNNING change hold: the handler\'s entry, not the claim', async () => {
      const { cronql } = api;
      const changes: RunChange[] = [];
      cronql.events.on((c) => changes.push(c));
      const job = await cronql.jobs.create({ key: 'now', target: 'stamped', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
      for (let i = 0; i < 5; i++) {
        const res = await gql<{ runJobNow: { id: string; status: string; startedAt: string } }, unknown>(
          api.url,
          'mutation ($id: ID!) { runJobNow(id: $id) { id status startedAt } }',
          { id: job.id },
          api.adminToken,
        );
        expect(res.errors).toBeUndefined();
        const answer = res.data!.runJobNow;
        // The row can be read SUCCEEDED an instant before the run's changes are published (they
        // follow the statements' answers): wait for both.
        const row = await eventually(async () => {
          const r = await cronql.runs.get(answer.id);
          return r?.status === 'SUCCEEDED' && changes.some((c) => c.run.id === answer.id && c.run.status === 'RUNNING') && r;
        });
        const running = changes.find((c) => c.run.id === answer.id && c.run.status === 'RUNNING')!;
        expect(Date.parse(answer.startedAt)).toBe(row.startedAt!.getTime());
        expect(running.run.startedAt!.getTime()).toBe(row.startedAt!.getTime());
        expect(row.startedAt!.getTime()).toBeLessThanOrEqual(stamps.get(answer.id)!);
      }
    });
  });

  describe('in every lateness figure', () => {
    const slot = new Date('2026-06-01T12:00:10.000Z');
    const clock = new ManualClock('2026-06-01T12:00:00.000Z');
    let api: Api;
    beforeAll(async () => {
      api = await startApi({ instanceId: 'lateness', clock }, { metricsToken: 'scrape-me' });
    });
    afterAll(async () => {
      await api.close();
    });

    it('the lateness histogram and the stats percentiles measure the slot to the handler’s entry, not to the claim', async () => {
      const { cronql } = api;
      // 700 ms pass between the claim (at the slot) and the handler's entry.
      const off = cronql.runtimeEvents.on('slotRecorded', (e) => e.kind === 'claimed' && clock.advance(700));
      const job = await cronql.jobs.create({ key: 'late', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
      clock.set(slot);
      await cronql.runtime!.whenIdle();
      off();
      const [run] = (await cronql.runs.list({ jobId: job.id }, 10)).nodes;
      expect(run.status).toBe('SUCCEEDED');
      expect(run.createdAt.getTime()).toBe(slot.getTime()); // claimed at the slot
      expect(run.startedAt!.getTime() - slot.getTime()).toBe(700);

      const base = api.url.replace(/\/graphql$/, '');
      const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer scrape-me' } })).text();
      const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      expect(sample('cronql_fire_lateness_seconds_count')).toBe(1);
      expect(sample('cronql_fire_lateness_seconds_sum')).toBeCloseTo(0.7, 6);
      const res = await gql<{ stats: { lateness: Record<string, number> } }, unknown>(
        api.url,
        'query { stats(window: 24) { lateness { p50Ms p90Ms p99Ms maxMs } } }',
        {},
        api.viewerToken,
      );
      expect(res.data?.stats.lateness).toEqual({ p50Ms: 700, p90Ms: 700, p99Ms: 700, maxMs: 700 });
    });
  });
});
