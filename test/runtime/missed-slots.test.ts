import { describe, expect, it } from 'vitest';
import { CatchUpPolicy } from '../../src/domain/enums.js';
import { MAX_MISSED_ROWS, planGap } from '../../src/runtime/missed-slots.js';
import { parseCronExpression, slotsBetween } from '../../src/schedule/index.js';
import { UNBOUNDED } from '../../src/schedule/job-schedule.js';

const every = (expr: string) => parseCronExpression(expr);
/** One expression in a zone, unbounded, as planGap takes a schedule. */
const cron = (expr: string, timezone: string) => ({ schedule: { type: 'RECURRING' as const, expressions: [expr], timezone }, bounds: UNBOUNDED });
const at = (s: string) => new Date(`2026-03-01T${s}Z`);

describe('planGap: what becomes of the slots of a gap', () => {
  it('accounts for every slot exactly once, whatever the gap, policy and limit (generated)', () => {
    const exprs = ['* * * * * *', '*/7 * * * * *', '0 * * * * *', '*/5 * * * *', '0 0 * * *'];
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 300; i++) {
      const expr = exprs[rand(exprs.length)];
      const after = new Date(at('00:00:00').getTime() + rand(3_600_000));
      const until = new Date(after.getTime() + rand(i % 3 === 0 ? 3 * 86_400_000 : 900_000));
      const now = new Date(until.getTime() + rand(20_000));
      const policy = [CatchUpPolicy.NONE, CatchUpPolicy.LATEST, CatchUpPolicy.ALL][rand(3)];
      const limit = policy === CatchUpPolicy.ALL && rand(2) ? 1 + rand(50) : null;
      const plan = planGap({ ...cron(expr, 'Europe/Paris'), afterExclusive: after, untilInclusive: until, now, graceMs: 10_000, policy, limit });
      const all = slotsBetween(every(expr), 'Europe/Paris', after, until, 1_000_000);
      const individually = [...plan.run, ...plan.missed].map((d) => d.getTime());
      expect(new Set(individually).size).toBe(individually.length);
      expect(plan.missed.length).toBeLessThanOrEqual(MAX_MISSED_ROWS);
      if (plan.summary?.countIsLowerBound) expect(individually.length + plan.summary.count).toBeLessThan(all.length);
      else expect(individually.length + (plan.summary?.count ?? 0)).toBe(all.length);
      // The runs are the newest slots, oldest first; the policy bounds how many.
      const newest = all.slice(all.length - plan.run.length).map((d) => d.getTime());
      expect(plan.run.map((d) => d.getTime())).toEqual(newest);
      const cap = policy === CatchUpPolicy.ALL ? (limit ?? 10) : policy === CatchUpPolicy.LATEST ? 1 : 0;
      const inGrace = all.length > 0 && now.getTime() - all[all.length - 1].getTime() <= 10_000;
      expect(plan.run.length).toBe(Math.min(all.length, Math.max(cap, inGrace ? 1 : 0)));
      if (plan.summary) expect(plan.summary.to.getTime()).toBeLessThan(plan.missed[0].getTime());
    }
  });

  it('a week offline, every second: 100 rows and a summary whose count is a lower bound', () => {
    const plan = planGap({
      ...cron('* * * * * *', 'UTC'),
      afterExclusive: at('00:00:00'),
      untilInclusive: new Date(at('00:00:00').getTime() + 7 * 86_400_000),
      now: new Date(at('00:00:00').getTime() + 7 * 86_400_000 + 60_000),
      graceMs: 10_000,
      policy: CatchUpPolicy.NONE,
      limit: null,
    });
    expect(plan.run).toEqual([]);
    expect(plan.missed).toHaveLength(100);
    expect(plan.summary).toMatchObject({ count: 10_000, countIsLowerBound: true, from: at('00:00:01') });
  });
});
