import { CronqlError } from '../errors.js';
import { JobStatus, ScheduleType } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import { SETTING_NAMES, type JobSettings } from '../domain/job-fields.js';
import type { JobRecord, JobSnapshot } from '../domain/job.js';
import type { JobAudit, JobChange, JobQuery, JobStoreApi } from '../db/job-store.js';
import { auditActor } from './audit-actor.js';
import { JobWriteRefused } from '../db/job-write-refused.js';
import { nextDueSlots, NO_CALENDARS, type CalendarsOf, type DueJob } from '../domain/due-slots.js';
import type { Clock } from '../runtime/clock.js';
import type { TargetRegistry } from '../runtime/targets/registry.js';
import { decodeCursor, pageSize, toPage, type Page } from './pagination.js';
import { assertNotOwnUpstream } from './dependency-rules.js';
import { RESUMED, settingsOfNewVersion, validateDefinition, validateKey, validatePauseEnd, validateReason, validateSkipCount, type DefinitionInput, type ValidDefinition } from './job-rules.js';
import { CRONQL } from '../db/runs/vocabulary.js';
import { checkText } from './stored-input.js';
import { toJobQuery, type JobFilter } from './job-filter.js';
import { formatSelector, parseLabelSelector, type LabelSelector } from '../domain/label-selector.js';
import { formatEvery } from '../schedule/interval.js';
import { secretNames } from '../secrets/references.js';
import type { RuntimePort } from './runtime-port.js';
import { EVERY_JOB, inScope, within, type Scope } from '../domain/scope.js';
import type { Labels } from '../domain/label-selector.js';

export interface CreateJobInput extends DefinitionInput {
  key: string;
}

/** Omitted fields are copied from the version being replaced. */
export type NewJobVersionInput = Partial<DefinitionInput>;

export type { JobFilter };

export interface ServiceDeps {
  /** Opens the data layer's job store (plain records in and out), told of every job row a write changed. */
  jobStore: (publish: (jobs: readonly JobRecord[]) => void) => JobStoreApi;
  targets: TargetRegistry;
  clock: Clock;
  maxPayloadBytes: number;
  runtime?: RuntimePort;
  /** Checks that the secrets a payload references exist. */
  secrets?: { assertExist(names: Iterable<string>): Promise<void> };
  /** Told of the job rows this process's writes changed (after the runtime). */
  jobsChanged?: (jobs: readonly JobRecord[]) => void;
  /** The rules of the calendars a job names (none until calendars are wired in). */
  calendarsOf?: CalendarsOf;
  /** The counts that move without a notification: slots left to skip, runs left under maxRuns. */
  counts?: (ids: readonly string[]) => Promise<Map<string, { skipRemaining: number; runsLeft: number | null }>>;
  /** Checks that the notification channels a job's `notify` names exist (UNKNOWN_CHANNEL). */
  channels?: { assertExist(names: Iterable<string>): Promise<void> };
}

/** What the runtime needs of a job version: its record less what only the API shows. */
export function toSnapshot(job: JobRecord): JobSnapshot {
  const { finalSlotAt: _f, consecutiveFailures: _c, lastSuccessAt: _s, lastFailureAt: _l, pauseReason: _p, skipRemaining: _sr, skipReason: _sw, supersedesId: _i, createdBy: _cb, updatedBy: _ub, createdAt: _ca, ...snapshot } = job;
  return snapshot;
}

/** A job version's settings, as its record holds them. */
const settingsOfRecord = (job: JobRecord): JobSettings => Object.fromEntries(SETTING_NAMES.map((name) => [name, job[name]])) as JobSettings;

/**
 * Job definitions: create, pause, resume, new version, retire, read. The rules live here
 * (validation, which state a change needs, the errors callers see); the writes are the job
 * store's (`db/job-store.ts`: conditional updates, NOTIFY in the same transaction, one place that
 * tells this process's runtime). Bad input changes nothing.
 */
export class JobService {
  private readonly store: JobStoreApi;

  constructor(private readonly d: ServiceDeps) {
    // This process's runtime hears of the writes here; the others through the store's NOTIFY.
    this.store = d.jobStore((jobs) => {
      for (const job of jobs) d.runtime?.jobChanged(toSnapshot(job));
      d.jobsChanged?.(jobs);
    });
  }

  /** A job version by id; null when there is none, or when it is outside `scope` (the same answer). */
  async get(id: string, scope: Scope = EVERY_JOB): Promise<JobRecord | null> {
    if (!isUuid(id)) return null;
    const job = await this.store.get(id);
    return job && inScope(scope, job.labels) ? job : null;
  }

  /** @throws NOT_FOUND when there is no such job version, or it is outside `scope` (the same error: docs/teams.md). */
  async getOrThrow(id: string, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    const job = await this.get(id, scope);
    if (!job) throw new CronqlError('NOT_FOUND', `no job with id ${id}`, { id });
    return job;
  }

  /** Batched lookup (GraphQL dataloaders): jobs in the order of `ids`, null where missing or outside `scope`. */
  async getMany(ids: readonly string[], scope: Scope = EVERY_JOB): Promise<(JobRecord | null)[]> {
    const jobs = await this.store.getMany(ids.filter(isUuid));
    for (const job of jobs) this.rememberLabels(job);
    const byId = new Map(jobs.filter((j) => inScope(scope, j.labels)).map((j) => [j.id, j]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The versions that replaced the given ones (GraphQL `supersededBy`), batched; null where none, or outside `scope`. */
  async getSuccessors(ids: readonly string[], scope: Scope = EVERY_JOB): Promise<(JobRecord | null)[]> {
    const rows = await this.store.successorsOf(ids.filter(isUuid));
    const bySupersedes = new Map(rows.filter((j) => inScope(scope, j.labels)).map((j) => [j.supersedesId!, j]));
    return ids.map((id) => bySupersedes.get(id) ?? null);
  }

  /** The newest version of each key (an AFTER job's upstreams, `Job.after`), batched: null where no job has the key. */
  async newestByKeys(keys: readonly string[]): Promise<(JobRecord | null)[]> {
    const byKey = new Map((await this.store.newestByKeys(keys)).map((j) => [j.jobKey, j]));
    return keys.map((k) => byKey.get(k) ?? null);
  }

  /**
   * The labels of these job versions (those that exist), for the scope of runs (services/run.service.ts):
   * a version's labels never change, so they are kept once read (bounded), and a feed of run
   * changes asks the database once per job version, not once per change.
   */
  async labelsOf(ids: readonly string[]): Promise<Map<string, Labels>> {
    const missing = [...new Set(ids)].filter((id) => !this.labels.has(id));
    if (missing.length > 0) await this.getMany(missing);
    const out = new Map<string, Labels>();
    for (const id of ids) {
      const labels = this.labels.get(id);
      if (labels) out.set(id, labels);
    }
    return out;
  }

  /** Labels of job versions read so far (immutable per version), oldest evicted first past MAX_KEPT_LABELS. */
  private readonly labels = new Map<string, Labels>();

  private rememberLabels(job: JobRecord): void {
    if (this.labels.has(job.id)) return;
    if (this.labels.size >= MAX_KEPT_LABELS) this.labels.delete(this.labels.keys().next().value!);
    this.labels.set(job.id, job.labels);
  }

  /** A page of the job versions matching `filter` in the caller's `scope` (both in the same statement), and how many match. */
  async list(filter: JobFilter = {}, first?: number | null, after?: string | null, scope: Scope = EVERY_JOB): Promise<Page<JobRecord>> {
    const size = pageSize(first);
    const query = toJobQuery(filter);
    const { rows, total } = await this.store.list({ ...query, selector: within(scope, query.selector) }, decodeCursor(after), size + 1);
    return toPage(rows, size, (j) => ({ at: j.createdAt, id: j.id }), total);
  }

  /**
   * The next slot of the job that will run (domain/due-slots.ts: bounds, a pause that ends,
   * skipped slots applied): null for a job paused for good or retired. A job armed here with
   * nothing to subtract answers from its actor (the slot its alarm is set for).
   */
  nextRunAt(job: JobRecord): Date | null {
    const due = dueJobOf(job, null, this.d.calendarsOf);
    if (job.status === JobStatus.ACTIVE && job.skipRemaining === 0 && due.calendars.length === 0 && job.scheduleType !== ScheduleType.ONE_TIME) {
      const armed = this.d.runtime?.nextRunAt(job.id);
      if (armed) return armed;
    }
    if (job.status === JobStatus.ACTIVE && job.scheduleType === ScheduleType.ONE_TIME) return job.runAt ?? null;
    return nextDueSlots(due, this.d.clock.now(), 1)[0] ?? null;
  }

  /** The next `count` slots of the job that will run (see `nextRunAt`), its runs left under maxRuns counted. */
  async nextRuns(job: JobRecord, count: number): Promise<Date[]> {
    if (!Number.isInteger(count) || count < 0) throw new CronqlError('BAD_USER_INPUT', `count must be a whole number (at most ${MAX_NEXT_RUNS} are answered)`, { field: 'count', max: MAX_NEXT_RUNS });
    const n = Math.min(count, MAX_NEXT_RUNS);
    let fresh = { skipRemaining: job.skipRemaining, runsLeft: null as number | null };
    if ((job.maxRuns !== null || job.skipRemaining > 0) && this.d.counts) fresh = (await this.d.counts([job.id])).get(job.id) ?? fresh;
    return nextDueSlots({ ...dueJobOf(job, fresh.runsLeft, this.d.calendarsOf), skipRemaining: fresh.skipRemaining }, this.d.clock.now(), n);
  }

  async create(input: CreateJobInput, actor: string | null = null): Promise<JobRecord> {
    const key = validateKey(input.key);
    const now = this.d.clock.now();
    const valid = validateDefinition(input, { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now });
    assertNotOwnUpstream(key, valid.after);
    await this.d.secrets?.assertExist(secretNames(valid.payload));
    await this.d.channels?.assertExist(valid.notify);
    try {
      return await this.store.create(key, valid, actor, now, { actor: auditActor(actor), action: 'createJob' });
    } catch (err) {
      if (err instanceof JobWriteRefused && err.reason === 'KEY_EXISTS') throw keyExists(key);
      throw unknownCalendar(err) ?? dependencyRefused(err) ?? err;
    }
  }

  /**
   * Several new jobs at once, all or none (`cronql apply`'s creations, `createJobs`): every input
   * is checked by the rules `create` applies before anything is written, then one statement writes
   * them all with their notifications. An error names the input it is about (`details.index`,
   * `details.key`, and the key in the message). At most MAX_JOBS_PER_BATCH inputs.
   */
  async createMany(inputs: readonly CreateJobInput[], actor: string | null = null): Promise<JobRecord[]> {
    assertBatchSize(inputs.length);
    const now = this.d.clock.now();
    const seen = new Set<string>();
    const rows = inputs.map((input, index) => {
      try {
        const key = validateKey(input.key);
        if (seen.has(key)) throw new CronqlError('KEY_EXISTS', `the key "${key}" is listed twice`, { key });
        seen.add(key);
        const fields = validateDefinition(input, { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now });
        assertNotOwnUpstream(key, fields.after);
        return { key, fields };
      } catch (err) {
        throw err instanceof CronqlError ? ofInput(err, index, input.key) : err;
      }
    });
    // Upstreams first: the database checks each new job's upstreams against the rows before it.
    const ordered = upstreamsFirst(rows);
    const named = (err: CronqlError, index: number) => ofInput(err, index, rows[index].key);
    await this.assertReferencesExist(rows, named);
    try {
      const created = new Map((await this.store.createMany(ordered, actor, now, { actor: auditActor(actor), action: 'createJobs' })).map((j) => [j.jobKey, j]));
      return rows.map((r) => created.get(r.key)!);
    } catch (err) {
      if (err instanceof JobWriteRefused && err.reason === 'KEY_EXISTS') {
        const index = rows.findIndex((r) => r.key === err.key);
        const e = keyExists(err.key ?? '(one of the keys)');
        throw index >= 0 ? ofInput(e, index, err.key) : e;
      }
      throw refusalOfInput(err, rows, named);
    }
  }

  /** Pauses an ACTIVE job; with `until` (a future instant) it resumes by itself then (`resumeEnded`). */
  async pause(id: string, reason: unknown, actor: string | null = null, until: Date | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    const why = validateReason(reason);
    const end = validatePauseEnd(until, this.d.clock.now());
    return this.transition(id, [JobStatus.ACTIVE], { status: JobStatus.PAUSED, pauseReason: why, pausedUntil: end }, actor, 'pause', {
      action: 'pauseJob',
      details: { reason: why, until: end?.toISOString() ?? null },
    }, scope);
  }

  async resume(id: string, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    return this.transition(id, [JobStatus.PAUSED], RESUMED, actor, 'resume', { action: 'resumeJob' }, scope);
  }

  /**
   * Pauses every ACTIVE job whose labels match `labelSelector` (and `scope`, the caller's token's
   * selector, when it has one), each exactly as `pause` does — reason, optional end, the NOTIFY
   * every instance acts on — in one statement; jobs not ACTIVE are left as they are. Returns the
   * jobs paused. @throws CronqlError INVALID_SELECTOR (an empty selector too), REASON_REQUIRED
   */
  async pauseMatching(labelSelector: unknown, reason: unknown, until: Date | null, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord[]> {
    const selector = bulkSelector(labelSelector, scope);
    const why = validateReason(reason);
    const end = validatePauseEnd(until, this.d.clock.now());
    return this.store.changeBySelector(selector, [JobStatus.ACTIVE], { status: JobStatus.PAUSED, pauseReason: why, pausedUntil: end }, actor, this.d.clock.now(), {
      actor: auditActor(actor),
      action: 'pauseJobs',
      details: { reason: why, until: end?.toISOString() ?? null, labelSelector: formatSelector(selector) },
    });
  }

  /** Resumes every PAUSED job whose labels match, each as `resume` does, in one statement (see `pauseMatching`). */
  async resumeMatching(labelSelector: unknown, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord[]> {
    const selector = bulkSelector(labelSelector, scope);
    return this.store.changeBySelector(selector, [JobStatus.PAUSED], { ...RESUMED }, actor, this.d.clock.now(), {
      actor: auditActor(actor),
      action: 'resumeJobs',
      details: { labelSelector: formatSelector(selector) },
    });
  }

  /**
   * The end of a pause given an `until`: the same resume as `resume`, by cronql, if the job is
   * still PAUSED with that end — a conditional update, so of the instances whose alarm rang for
   * it exactly one resumes it, and a pause changed meanwhile (resumed by hand, paused again) is
   * left alone. Null when there was nothing to resume.
   */
  async resumeEnded(id: string, until: Date): Promise<JobRecord | null> {
    if (!isUuid(id)) return null;
    return this.store.transition(id, [JobStatus.PAUSED], RESUMED, CRONQL, this.d.clock.now(), { actor: CRONQL, action: PAUSE_ENDED, details: { until: until.toISOString() } }, until);
  }

  /**
   * The job's next `count` slots are recorded SKIPPED (SKIPPED_BY_ADMIN) with `reason` when they
   * come, instead of running; replaces an earlier request (0 cancels it). ACTIVE or PAUSED jobs
   * (a paused job skips the slots after its resume).
   */
  async skipNext(id: string, count: unknown, reason: unknown, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    const n = validateSkipCount(count);
    const why = validateReason(reason, 'skipping slots');
    return this.transition(id, [JobStatus.ACTIVE, JobStatus.PAUSED], { skipRemaining: n, skipReason: n === 0 ? null : why }, actor, 'skip the next runs of', {
      action: 'skipNextRuns',
      details: { count: n, reason: n === 0 ? null : why },
    }, scope);
  }

  async retire(id: string, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    return this.transition(
      id,
      [JobStatus.ACTIVE, JobStatus.PAUSED],
      { status: JobStatus.RETIRED, pauseReason: null },
      actor,
      'retire',
      { action: 'retireJob' },
      scope,
    );
  }

  /** Atomically retires the job and activates a new version of it; returns the new version. */
  async createVersion(id: string, input: NewJobVersionInput, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord> {
    const old = await this.getOrThrow(id, scope);
    const [created] = await this.supersede([{ old, input }], actor, 'createJobVersion', (err) => err);
    return created;
  }

  /**
   * Several jobs' new versions at once, all or none (`cronql apply`'s changed jobs,
   * `createJobVersions`): each by exactly the rules of `createVersion`, checked for every input
   * before anything is written, then one transaction retires the replaced versions and writes the
   * new ones with their audit entries (one per job) and notifications. An error names the input it
   * is about (`details.index`, `details.key`, and the key in the message). At most
   * MAX_JOBS_PER_BATCH inputs; a job listed twice is refused (BAD_USER_INPUT).
   */
  async createVersions(inputs: readonly { id: string; input: NewJobVersionInput }[], actor: string | null = null, scope: Scope = EVERY_JOB): Promise<JobRecord[]> {
    assertBatchSize(inputs.length);
    const olds = await this.getMany(inputs.map((i) => i.id), scope);
    const seen = new Set<string>();
    const items = inputs.map(({ id, input }, index) => {
      const old = olds[index];
      if (!old) throw ofInput(new CronqlError('NOT_FOUND', `no job with id ${id}`, { id }), index, undefined);
      if (seen.has(old.id)) throw ofInput(new CronqlError('BAD_USER_INPUT', `job ${old.jobKey} v${old.version} is listed twice`, { field: 'inputs', id }), index, old.jobKey);
      seen.add(old.id);
      return { old, input };
    });
    return this.supersede(items, actor, 'createJobVersions', (err, index) => ofInput(err, index, items[index].old.jobKey));
  }

  /**
   * The rules of a new version, written once for `createVersion` and `createVersions`: each input
   * validated against the version it replaces, the secrets and channels it names checked, then
   * the store's one transaction. `named` says which input an error is about (a batch's), or
   * leaves it as it is (one job's).
   */
  private async supersede(
    items: readonly { old: JobRecord; input: NewJobVersionInput }[],
    actor: string | null,
    action: string,
    named: (err: CronqlError, index: number) => CronqlError,
  ): Promise<JobRecord[]> {
    const now = this.d.clock.now();
    const rows = items.map(({ old, input }, index) => {
      try {
        return { key: old.jobKey, old, input, fields: this.newVersionFields(old, input, now) };
      } catch (err) {
        throw err instanceof CronqlError ? named(err, index) : err;
      }
    });
    await this.assertReferencesExist(rows, named);
    try {
      const pairs = await this.store.supersedeMany(
        // The names of the fields the caller sent: their values may hold credentials (a payload, headers).
        rows.map((r) => ({ old: r.old, fields: r.fields, details: { fields: Object.keys(r.input).sort() } })),
        actor,
        now,
        { actor: auditActor(actor), action },
      );
      return pairs.map(([, created]) => created);
    } catch (err) {
      if (err instanceof JobWriteRefused && (err.reason === 'NOT_IN_STATE' || err.reason === 'CONCURRENT')) {
        const index = Math.max(0, rows.findIndex((r) => r.key === err.key));
        const old = rows[index].old;
        throw named(err.reason === 'NOT_IN_STATE' ? invalidState(old, 'createJobVersion') : new CronqlError('INVALID_STATE', `job ${old.jobKey} was changed concurrently; try again`), index);
      }
      throw refusalOfInput(err, rows, named);
    }
  }

  /** The validated fields of a new version of `old`: what `input` gives, the rest copied from `old`. @throws CronqlError INVALID_STATE (a RETIRED `old`) and the definition's rules */
  private newVersionFields(old: JobRecord, input: NewJobVersionInput, now: Date): ValidDefinition {
    if (old.status === JobStatus.RETIRED) {
      throw new CronqlError('INVALID_STATE', `job ${old.jobKey} v${old.version} is RETIRED; versions are made from the live one`, {
        status: old.status,
      });
    }
    const scheduleType = input.scheduleType ?? old.scheduleType;
    const switched = scheduleType !== old.scheduleType;
    const valid = validateDefinition(
      {
        target: input.target ?? old.target,
        scheduleType,
        // Switching schedule type drops the other type's fields unless given; a cronExpression
        // given alone replaces the list of expressions.
        ...expressionsOfNewVersion(input, old, switched),
        runAt: input.runAt !== undefined ? input.runAt : switched ? null : old.runAt,
        timezone: input.timezone ?? old.timezone,
        every: input.every !== undefined ? input.every : switched || old.everyMs === null ? null : formatEvery(old.everyMs),
        anchorAt: input.anchorAt !== undefined ? input.anchorAt : switched ? null : old.anchorAt,
        // Bounds are kept unless given (null clears one); a ONE_TIME version has none.
        startAt: input.startAt !== undefined ? input.startAt : scheduleType === ScheduleType.ONE_TIME ? null : old.startAt,
        endAt: input.endAt !== undefined ? input.endAt : scheduleType === ScheduleType.ONE_TIME ? null : old.endAt,
        ...settingsOfNewVersion(input, settingsOfRecord(old)),
        // Switching to or from AFTER drops the upstreams unless given.
        ...(switched && (scheduleType === ScheduleType.AFTER || old.scheduleType === ScheduleType.AFTER) ? afterOfSwitch(input) : {}),
      },
      { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now },
    );
    assertNotOwnUpstream(old.jobKey, valid.after);
    return valid;
  }

  /**
   * The secrets and notification channels the new definitions name exist: one lookup of each
   * when all do; else each row's own, so that the error names its input (`named`).
   */
  private async assertReferencesExist(rows: readonly { fields: ValidDefinition }[], named: (err: CronqlError, index: number) => CronqlError): Promise<void> {
    const own = (index: number) => (e: unknown) => {
      throw e instanceof CronqlError ? named(e, index) : e;
    };
    const names = rows.flatMap((r) => [...secretNames(r.fields.payload)]);
    if (names.length) {
      try {
        await this.d.secrets?.assertExist(names);
      } catch (err) {
        if (!(err instanceof CronqlError)) throw err;
        for (const [index, row] of rows.entries()) await this.d.secrets?.assertExist(secretNames(row.fields.payload)).catch(own(index));
        throw err;
      }
    }
    for (const [index, row] of rows.entries()) {
      if (row.fields.notify.length === 0) continue;
      await this.d.channels?.assertExist(row.fields.notify).catch(own(index));
    }
  }

  private async transition(
    id: string,
    from: JobStatus[],
    change: JobChange,
    actor: string | null,
    action: string,
    audit: Omit<JobAudit, 'actor'>,
    scope: Scope,
  ): Promise<JobRecord> {
    // Outside the caller's scope: NOT_FOUND, before anything is written.
    const job = await this.getOrThrow(id, scope);
    const updated = await this.store.transition(id, from, change, actor, this.d.clock.now(), { ...audit, actor: auditActor(actor) });
    if (!updated) {
      const current = (await this.get(id)) ?? job;
      throw invalidState(current, action);
    }
    return updated;
  }
}

/** How many job versions' labels the service keeps (a few MB at most). */
const MAX_KEPT_LABELS = 50_000;

/**
 * The selector of a bulk action: parsed, and refused when empty — "every job" must not be what a
 * typo or a missing variable does (docs/api.md, "Label selectors"). A scope (the token's own
 * selector) narrows it: both must hold.
 */
function bulkSelector(text: unknown, scope: Scope): LabelSelector {
  const selector = parseLabelSelector(text as string);
  if (selector.terms.length === 0) {
    throw new CronqlError('INVALID_SELECTOR', 'a bulk action needs a non-empty label selector: say `team` (every job with a team label) or another selector; an empty one would change every job', {
      field: 'labelSelector',
    });
  }
  return within(scope, selector)!;
}

/** The audit log's action for a pause that ended by itself (`until`), by cronql. */
export const PAUSE_ENDED = 'pauseEnded';

/** The most slots `nextRuns` answers. */
export const MAX_NEXT_RUNS = 100;

/** A job record as the due-slots rule reads it. */
function dueJobOf(job: JobRecord, runsLeft: number | null, calendarsOf: CalendarsOf = NO_CALENDARS): DueJob {
  return { ...job, runsLeft, calendars: calendarsOf(job) };
}

/** The expressions of a new version: given (the list, or one alone), or copied unless the type switched. */
function expressionsOfNewVersion(input: NewJobVersionInput, old: JobRecord, switched: boolean): Pick<NewJobVersionInput, 'cronExpression' | 'cronExpressions'> {
  if (input.cronExpressions !== undefined && input.cronExpressions !== null) return { cronExpression: input.cronExpression, cronExpressions: input.cronExpressions };
  if (input.cronExpression !== undefined) return { cronExpression: input.cronExpression, cronExpressions: null };
  if (switched) return { cronExpression: null, cronExpressions: null };
  return { cronExpression: old.cronExpression, cronExpressions: old.cronExpressions.length > 1 ? old.cronExpressions : null };
}

/** The most jobs `createMany` takes at once (a batch is one statement and one transaction). */
export const MAX_JOBS_PER_BATCH = 1_000;

/** @throws BAD_USER_INPUT past MAX_JOBS_PER_BATCH inputs (createJobs, createJobVersions). */
function assertBatchSize(n: number): void {
  if (n > MAX_JOBS_PER_BATCH) {
    throw new CronqlError('BAD_USER_INPUT', `at most ${MAX_JOBS_PER_BATCH} jobs per call (got ${n}); send them in batches`, {
      field: 'inputs',
      max: MAX_JOBS_PER_BATCH,
    });
  }
}

/**
 * The database's refusal of a batch's write for one row's sake (an unknown calendar or pool, an
 * unknown upstream, a cycle), as the error of the input it is about (`named`, by the first row
 * that names it); anything else as it is.
 */
function refusalOfInput(err: unknown, rows: readonly { key: string; fields: ValidDefinition }[], named: (err: CronqlError, index: number) => CronqlError): unknown {
  const calendar = unknownCalendar(err);
  if (calendar) {
    const names = (r: (typeof rows)[number]) =>
      calendar.code === 'UNKNOWN_POOL' ? r.fields.concurrencyPool === calendar.details!.pool : r.fields.calendars.includes(calendar.details!.calendar as string);
    const index = rows.findIndex(names);
    return index >= 0 ? named(calendar, index) : calendar;
  }
  const dependency = dependencyRefused(err);
  if (dependency) {
    const key = dependency.details!.jobKey as string;
    const index = rows.findIndex((r) => (dependency.code === 'UNKNOWN_JOB' ? r.fields.after.some((d) => d.jobKey === key) : r.key === key));
    return index >= 0 ? named(dependency, index) : dependency;
  }
  return err;
}

/** An input's error, saying which input (its position and key). */
function ofInput(err: CronqlError, index: number, key: unknown): CronqlError {
  const named = typeof key === 'string' ? `job "${key}" (input ${index + 1})` : `input ${index + 1}`;
  return new CronqlError(err.code, `${named}: ${err.message}`, { ...err.details, index, ...(typeof key === 'string' ? { key } : {}) });
}

/** The database refused a calendar or the concurrency pool the job names: it does not exist (or was deleted meanwhile). */
function unknownCalendar(err: unknown): CronqlError | null {
  if (!(err instanceof JobWriteRefused)) return null;
  if (err.reason === 'UNKNOWN_POOL') {
    return new CronqlError('UNKNOWN_POOL', `concurrency pool "${err.key ?? '?'}" does not exist; create it with setConcurrencyPool`, { field: 'concurrencyPool', pool: err.key });
  }
  if (err.reason !== 'UNKNOWN_CALENDAR') return null;
  return new CronqlError('UNKNOWN_CALENDAR', `calendar "${err.key ?? '?'}" does not exist; create it with setCalendar`, { field: 'calendars', calendar: err.key });
}

/** The database refused the upstreams: a key no job has, or a cycle through the job's key. */
function dependencyRefused(err: unknown): CronqlError | null {
  if (!(err instanceof JobWriteRefused)) return null;
  if (err.reason === 'UNKNOWN_JOB') {
    return new CronqlError('UNKNOWN_JOB', `no job has the key "${err.key ?? '?'}" (an upstream in \`after\`); create it first`, { field: 'after', jobKey: err.key });
  }
  if (err.reason === 'DEPENDENCY_CYCLE') {
    return new CronqlError('DEPENDENCY_CYCLE', `job "${err.key ?? '?'}" would run after itself: its upstreams lead back to it`, { field: 'after', jobKey: err.key });
  }
  return null;
}

/** A new version switching to or from AFTER: the upstreams and their mode as given, else none. */
function afterOfSwitch(input: NewJobVersionInput): Pick<NewJobVersionInput, 'after' | 'afterMode' | 'afterWindowSeconds'> {
  return { after: input.after ?? null, afterMode: input.afterMode ?? null, afterWindowSeconds: input.afterWindowSeconds ?? null };
}

/**
 * New jobs in an order where each one's upstreams among them come before it (the order given
 * otherwise): the database checks a job's upstreams against the rows already written. A cycle
 * among them is DEPENDENCY_CYCLE, naming the input that closes it.
 */
function upstreamsFirst<T extends { key: string; fields: { after: readonly { jobKey: string }[] } }>(rows: readonly T[]): T[] {
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const out: T[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (row: T) => {
    if (placed.has(row.key)) return;
    visiting.add(row.key);
    for (const d of row.fields.after) {
      const upstream = byKey.get(d.jobKey);
      if (upstream && visiting.has(upstream.key)) {
        const index = rows.indexOf(row);
        throw ofInput(new CronqlError('DEPENDENCY_CYCLE', `its upstream "${d.jobKey}" leads back to it`, { field: 'after', jobKey: row.key }), index, row.key);
      }
      if (upstream) place(upstream);
    }
    visiting.delete(row.key);
    placed.add(row.key);
    out.push(row);
  };
  for (const row of rows) place(row);
  return out;
}

function keyExists(key: string): CronqlError {
  return new CronqlError('KEY_EXISTS', `a job with key "${key}" exists already; use createJobVersion`, { key });
}

function invalidState(job: JobRecord, action: string): CronqlError {
  return new CronqlError('INVALID_STATE', `cannot ${action} job ${job.jobKey} v${job.version}: it is ${job.status}`, {
    status: job.status,
  });
}

export { isUuid };
