import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';
import { MissedReason } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { parseCronExpression } from '../schedule/index.js';
import type { Clock } from './clock.js';
import type { RuntimeEvents } from './events.js';
import { missedMessage, planGap } from './missed-slots.js';
import type { MissedSlot, RunStore } from '../db/run-store.js';
import type { ExcludedSlotPlan } from './calendar-skips.js';

export interface LedgerOptions {
  store: RunStore;
  clock: Clock;
  log: Logger;
  /** Told of each gap accounted for (`slotsMissed`). */
  events: RuntimeEvents;
  /** A missed slot this recent still runs, whatever the job's policy. */
  graceMs: number;
  /** Runs slots the policy picked, oldest first, one at a time. */
  run(job: JobSnapshot, slots: Date[]): void;
  /** What to record for a slot the job's calendars exclude; null when none does (calendar-skips.ts). */
  excluded?: (job: JobSnapshot, slot: Date) => ExcludedSlotPlan | null;
}

interface Unrecorded {
  job: JobSnapshot;
  after: Date;
  until: Date;
  reason: MissedReason;
}

/**
 * Accounts for the slots a job did not fire on time, so that every slot the schedule designates
 * ends up as a run row. The ledger itself is in the database: a job's slots are accounted for up
 * to its latest SCHEDULED run (or the instant it became ACTIVE); what lies between that and now
 * was missed. For each gap the job's catch-up policy picks the slots that still run (planGap),
 * and the others become SKIPPED rows with the code MISSED and the reason in their details.
 *
 * While the database cannot be reached nothing can be recorded: gaps are kept here, one range per
 * job (bounded by the number of jobs), and accounted for when the database answers again.
 */
export class Ledger {
  private readonly unrecorded = new Map<string, Unrecorded>();

  constructor(private readonly o: LedgerOptions) {}

  /** Jobs with slots waiting to be accounted for (the database was unreachable). */
  get backlog(): number {
    return this.unrecorded.size;
  }

  /** Accounts for the slots in (after, until] of `job`. Never rejects. */
  async account(job: JobSnapshot, after: Date, until: Date, reason: MissedReason): Promise<void> {
    const { store, clock, log } = this.o;
    if (!job.cronExpression) return;
    let plan;
    try {
      plan = planGap({
        expression: parseCronExpression(job.cronExpression),
        timezone: job.timezone,
        afterExclusive: after,
        untilInclusive: until,
        now: clock.now(),
        graceMs: this.o.graceMs,
        policy: job.catchUp,
        limit: job.catchUpLimit,
      });
    } catch (err) {
      log.error({ err, jobKey: job.jobKey }, 'cannot plan the missed slots of a job');
      return;
    }
    const message = missedMessage(reason);
    // A slot the job's calendars exclude would not have run anyway: never run, recorded as CALENDAR
    // (at most its span's rows), not MISSED.
    const excludedRows: MissedSlot[] = [];
    const runnable = (slot: Date) => {
      const excluded = job.calendars.length > 0 ? this.o.excluded?.(job, slot) : null;
      if (excluded?.row) excludedRows.push(excluded.row);
      return !excluded;
    };
    plan = { ...plan, missed: plan.missed.filter(runnable), run: plan.run.filter(runnable) };
    const rows: MissedSlot[] = [...plan.missed.map((slot) => ({ jobId: job.id, slot, message, details: { reason } })), ...excludedRows];
    if (plan.summary) {
      const { from, to, count, countIsLowerBound } = plan.summary;
      rows.unshift({
        jobId: job.id,
        slot: from,
        message: `${message} — this row stands for ${countIsLowerBound ? 'at least ' : ''}${count} slots from ${from.toISOString()} to ${to.toISOString()}`,
        details: { reason, summary: { count, countIsLowerBound, from: from.toISOString(), to: to.toISOString() } },
      });
    }
    if (rows.length > 0) {
      try {
        await store.recordMissed(rows);
        const missed = plan.missed.length + (plan.summary?.count ?? 0);
        log.warn({ jobKey: job.jobKey, reason, missed, running: plan.run.length }, 'slots missed');
        this.o.events.emit('slotsMissed', { jobId: job.id, jobKey: job.jobKey, reason, missed, running: plan.run.length, afterExclusive: after, untilInclusive: until });
      } catch (err) {
        if (isDatabaseUnavailable(err)) this.defer(job, after, until, reason);
        else log.error({ err, jobKey: job.jobKey }, 'could not record missed slots');
        return;
      }
    }
    if (plan.run.length > 0) this.o.run(job, plan.run);
  }

  /** Keeps a gap to account for once the database answers (merged with the job's earlier one). */
  defer(job: JobSnapshot, after: Date, until: Date, reason: MissedReason): void {
    const known = this.unrecorded.get(job.id);
    if (!known) {
      this.unrecorded.set(job.id, { job, after, until, reason });
      return;
    }
    known.job = job.revision >= known.job.revision ? job : known.job;
    if (after < known.after) known.after = after;
    if (until > known.until) known.until = until;
  }

  /** Accounts for every deferred gap (the database answers again). Never rejects. */
  async flush(): Promise<void> {
    const all = [...this.unrecorded.values()];
    this.unrecorded.clear();
    await Promise.all(all.map((u) => this.account(u.job, u.after, u.until, u.reason)));
  }
}
