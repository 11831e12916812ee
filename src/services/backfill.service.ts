import { auditActor } from './audit-actor.js';
import { randomUUID } from 'node:crypto';
import { CronqlError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import type { Pool } from '../db/pool.js';
import type { RunStore } from '../db/run-store.js';
import { backfillsOfJob, cancelBackfill, getBackfill, insertBackfill, liveVersionOf, planInputs } from '../db/backfill-store.js';
import { MAX_BACKFILL_SLOTS, planBackfill, type BackfillRecord } from '../domain/backfill.js';
import { BackfillScope, BackfillState } from '../domain/enums.js';
import type { JobRecord } from '../domain/job.js';
import { slotsBetween } from '../schedule/job-schedule.js';
import { exclusionAmong, type CalendarRules } from '../schedule/calendar.js';
import { jobScheduleOf } from '../domain/job-schedule.js';
import { isUuid, type JobService } from './job.service.js';
import { validateReason } from './job-rules.js';
import { EVERY_JOB, type Scope } from '../domain/scope.js';
import type { Tracing } from '../tracing/tracing.js';

/** What a backfill is asked for with (the API's `backfillJob`). */
export interface BackfillRequest {
  /** A version of the job: its schedule says which instants of the range are slots. */
  jobId: string;
  from: Date;
  to: Date;
  /** @default NOT_SUCCEEDED */
  scope?: BackfillScope | null;
  /** The plan only: nothing is written. @default false */
  dryRun?: boolean | null;
  reason: string;
  /**
   * The W3C `traceparent` of the caller's span (the GraphQL operation's): the backfill's runs
   * continue it, as a run-now's run does. Ignored while tracing is off.
   */
  traceparent?: string;
}

export interface BackfillServiceDeps {
  pool: Pool;
  store: RunStore;
  jobs: JobService;
  clock: Clock;
  /**
   * Moves backfills on now (a new one's first slot): this process's runtime, which runs the slot
   * here; without one, a round that tells a scheduler instance of each run it created.
   */
  mover: { advance(): Promise<void> };
  /** The calendars a job names, read now: a slot they exclude is left out of a plan. */
  calendars?: { getMany(names: readonly string[]): Promise<CalendarRules[]> };
  /** With tracing on: the trace context the backfill's runs continue. */
  tracing?: Pick<Tracing, 'continueOrStart'>;
}

/**
 * Backfills (docs/behaviour.md, "Backfill"): a job's past slots of a range planned by scope and
 * run again, oldest first, one at a time (trigger BACKFILL). The rules of a request are here; the
 * plan is `domain/backfill.ts`'s, its storage `db/backfill-store.ts`'s, and moving it on the
 * runtime's (`runtime/backfills.ts`, and the cluster's `backfills` duty).
 */
export class BackfillService {
  constructor(private readonly d: BackfillServiceDeps) {}

  /**
   * Plans the slots of `[from, to]` of the job's version `jobId` by `scope`, and unless `dryRun`
   * records the backfill and starts its first slot. The runs are of the job's live version (its
   * target and payload now), so a slot of an earlier version can be run again.
   * @throws NOT_FOUND, INVALID_STATE (the key has no live version), REASON_REQUIRED,
   *   BAD_USER_INPUT (the range), BACKFILL_TOO_LARGE (more than 10,000 slots in the range)
   */
  async backfill(req: BackfillRequest, requestedBy: string | null, callerScope: Scope = EVERY_JOB): Promise<BackfillRecord> {
    const reason = validateReason(req.reason, 'a backfill');
    const scope = req.scope ?? BackfillScope.NOT_SUCCEEDED;
    if (!Object.values(BackfillScope).includes(scope)) throw new CronqlError('BAD_USER_INPUT', `scope must be one of ${Object.values(BackfillScope).join(', ')}`);
    const { from, to } = req;
    const now = this.d.clock.now();
    if (!(from instanceof Date) || !(to instanceof Date) || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) {
      throw new CronqlError('BAD_USER_INPUT', 'from and to must be instants');
    }
    if (from.getTime() > to.getTime()) throw new CronqlError('BAD_USER_INPUT', 'from must not be after to', { from, to });
    if (to.getTime() > now.getTime()) throw new CronqlError('BAD_USER_INPUT', 'a backfill runs past slots: to must not be in the future', { to, now });
    const job = await this.d.jobs.getOrThrow(req.jobId, callerScope);
    const live = await liveVersionOf(this.d.pool, job.jobKey);
    if (!live) {
      throw new CronqlError('INVALID_STATE', `job ${job.jobKey} is RETIRED: no version is left to run a backfill`, { status: job.status });
    }
    // The runs are the live version's: one that left the caller's scope (new labels) is not theirs to run.
    if (callerScope && live !== job.id && !(await this.d.jobs.get(live, callerScope))) {
      throw new CronqlError('NOT_FOUND', `no job with id ${req.jobId}`, { id: req.jobId });
    }
    // A slot the job's calendars exclude (as they stand now) is left out: the calendar said no, and
    // counts in neither `slots` nor `skippedExisting`. The 10,000 cap counts the range's slots.
    const calendars = job.calendars.length > 0 && this.d.calendars ? await this.d.calendars.getMany(job.calendars) : [];
    const inRange = rangeSlots(job, from, to).filter((slot) => exclusionAmong(calendars, slot) === null);
    const plan = planBackfill(inRange, scope, await planInputs(this.d.pool, job.jobKey, from, to));
    const asked = { jobId: job.id, jobKey: job.jobKey, from, to, scope, reason, requestedBy, createdAt: now, ...plan };
    if (req.dryRun) return { ...asked, id: randomUUID(), created: 0, state: BackfillState.PLANNED, finishedAt: null };
    // A dry run changes nothing, and records nothing.
    const traceparent = this.d.tracing?.continueOrStart(req.traceparent) ?? null;
    const made = await insertBackfill(this.d.pool, asked, randomUUID(), { actor: auditActor(requestedBy), action: 'backfillJob' }, traceparent);
    if (made.state === BackfillState.RUNNING) await this.d.mover.advance();
    return (await getBackfill(this.d.pool, made.id)) ?? made;
  }

  /**
   * Stops a backfill: no slot of it starts from now on, and the attempts of its slot in progress
   * that have not started are CANCELED; a run already RUNNING finishes (cancel it with cancelRun).
   * @throws NOT_FOUND, INVALID_STATE (DONE or CANCELED already)
   */
  async cancel(id: string, actor: string | null = null, callerScope: Scope = EVERY_JOB): Promise<BackfillRecord> {
    // Outside the caller's scope: NOT_FOUND before anything is written (a backfill's job never changes).
    if (callerScope) await this.getOrThrow(id, callerScope);
    const audit = { actor: auditActor(actor), action: 'cancelBackfill' };
    const done = isUuid(id) ? await cancelBackfill(this.d.pool, id, this.d.clock.now(), audit) : null;
    if (!done) {
      const existing = await this.getOrThrow(id);
      throw new CronqlError('INVALID_STATE', `backfill ${id} is ${existing.state}; only a backfill in flight can be canceled`, { state: existing.state });
    }
    for (const runId of done.pendingRunIds) await this.d.store.cancel(runId, audit);
    return (await getBackfill(this.d.pool, id)) ?? done.backfill;
  }

  /** A backfill by id; null when there is none, or when its job is outside `callerScope` (the same answer). */
  async get(id: string, callerScope: Scope = EVERY_JOB): Promise<BackfillRecord | null> {
    const found = isUuid(id) ? await getBackfill(this.d.pool, id) : null;
    return found && (await this.visible([found], callerScope)).length > 0 ? found : null;
  }

  async getOrThrow(id: string, callerScope: Scope = EVERY_JOB): Promise<BackfillRecord> {
    const found = await this.get(id, callerScope);
    if (!found) throw new CronqlError('NOT_FOUND', `no backfill with id ${id}`, { id });
    return found;
  }

  /** A job key's backfills, newest first: those of versions in `callerScope`. */
  async ofJob(jobKey: string, limit = 20, callerScope: Scope = EVERY_JOB): Promise<BackfillRecord[]> {
    return this.visible(await backfillsOfJob(this.d.pool, jobKey, limit), callerScope);
  }

  /** The backfills whose job version is in scope: a backfill is its job's. */
  private async visible(backfills: BackfillRecord[], callerScope: Scope): Promise<BackfillRecord[]> {
    if (callerScope === null || backfills.length === 0) return backfills;
    const jobs = await this.d.jobs.getMany([...new Set(backfills.map((b) => b.jobId))], callerScope);
    const seen = new Set(jobs.flatMap((j) => (j ? [j.id] : [])));
    return backfills.filter((b) => seen.has(b.jobId));
  }
}

/**
 * The slots of `[from, to]` (both included) of a job version, oldest first — its schedule of any
 * kind, inside its bounds — at most MAX_BACKFILL_SLOTS (more: BACKFILL_TOO_LARGE, found without
 * computing the rest).
 */
export function rangeSlots(job: JobRecord, from: Date, to: Date): Date[] {
  const { schedule, bounds } = jobScheduleOf(job);
  const slots: Date[] = [];
  for (const slot of slotsBetween(schedule, bounds, from, to)) {
    if (slots.length === MAX_BACKFILL_SLOTS) {
      throw new CronqlError('BACKFILL_TOO_LARGE', `the range has more than ${MAX_BACKFILL_SLOTS} slots; split it into smaller ranges`, {
        limit: MAX_BACKFILL_SLOTS,
        from,
        to,
      });
    }
    slots.push(slot);
  }
  return slots;
}
