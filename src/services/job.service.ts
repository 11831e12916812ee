import { CronqlError } from '../errors.js';
import { JobStatus, ScheduleType } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import { SETTING_NAMES, type JobSettings } from '../domain/job-fields.js';
import type { JobRecord, JobSnapshot } from '../domain/job.js';
import type { JobChange, JobQuery, JobStoreApi } from '../db/job-store.js';
import { JobWriteRefused } from '../db/job-write-refused.js';
import { nextSlot } from '../schedule/index.js';
import type { Clock } from '../runtime/clock.js';
import type { TargetRegistry } from '../runtime/targets/registry.js';
import { decodeCursor, pageSize, toPage, type Page } from './pagination.js';
import { settingsOfNewVersion, validateDefinition, validateKey, validateReason, type DefinitionInput } from './job-rules.js';
import { checkText } from './stored-input.js';
import { secretNames } from '../secrets/references.js';
import type { RuntimePort } from './runtime-port.js';

export interface CreateJobInput extends DefinitionInput {
  key: string;
}

/** Omitted fields are copied from the version being replaced. */
export type NewJobVersionInput = Partial<DefinitionInput>;

export type JobFilter = JobQuery;

export interface ServiceDeps {
  /** Opens the data layer's job store (plain records in and out), told of every job row a write changed. */
  jobStore: (publish: (jobs: readonly JobRecord[]) => void) => JobStoreApi;
  targets: TargetRegistry;
  clock: Clock;
  maxPayloadBytes: number;
  runtime?: RuntimePort;
  /** Checks that the secrets a payload references exist. */
  secrets?: { assertExist(names: Iterable<string>): Promise<void> };
  /** Checks that the notification channels a job's `notify` names exist (UNKNOWN_CHANNEL). */
  channels?: { assertExist(names: Iterable<string>): Promise<void> };
}

/** What the runtime needs of a job version: its record less what only the API shows. */
export function toSnapshot(job: JobRecord): JobSnapshot {
  const { finalSlotAt: _f, consecutiveFailures: _c, lastSuccessAt: _s, lastFailureAt: _l, pauseReason: _p, supersedesId: _i, createdBy: _cb, updatedBy: _ub, createdAt: _ca, ...snapshot } = job;
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
    });
  }

  async get(id: string): Promise<JobRecord | null> {
    if (!isUuid(id)) return null;
    return this.store.get(id);
  }

  async getOrThrow(id: string): Promise<JobRecord> {
    const job = await this.get(id);
    if (!job) throw new CronqlError('NOT_FOUND', `no job with id ${id}`, { id });
    return job;
  }

  /** Batched lookup (GraphQL dataloaders): jobs in the order of `ids`, null where missing. */
  async getMany(ids: readonly string[]): Promise<(JobRecord | null)[]> {
    const byId = new Map((await this.store.getMany(ids.filter(isUuid))).map((j) => [j.id, j]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The versions that replaced the given ones (GraphQL `supersededBy`), batched. */
  async getSuccessors(ids: readonly string[]): Promise<(JobRecord | null)[]> {
    const rows = await this.store.successorsOf(ids.filter(isUuid));
    const bySupersedes = new Map(rows.map((j) => [j.supersedesId!, j]));
    return ids.map((id) => bySupersedes.get(id) ?? null);
  }

  async list(filter: JobFilter = {}, first?: number | null, after?: string | null): Promise<Page<JobRecord>> {
    const size = pageSize(first);
    checkText('filter.target', filter.target);
    checkText('filter.key', filter.key);
    checkText('filter.keyContains', filter.keyContains);
    const { rows, total } = await this.store.list(filter, decodeCursor(after), size + 1);
    return toPage(rows, size, (j) => ({ at: j.createdAt, id: j.id }), total);
  }

  /** The next slot of an ACTIVE job: from this instance's actor, else from the schedule math. */
  nextRunAt(job: JobRecord): Date | null {
    if (job.status !== JobStatus.ACTIVE) return null;
    const armed = this.d.runtime?.nextRunAt(job.id);
    if (armed) return armed;
    if (job.scheduleType === ScheduleType.ONE_TIME) return job.runAt ?? null;
    return nextSlot(job.cronExpression!, job.timezone, this.d.clock.now());
  }

  async create(input: CreateJobInput, actor: string | null = null): Promise<JobRecord> {
    const key = validateKey(input.key);
    const now = this.d.clock.now();
    const valid = validateDefinition(input, { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now });
    await this.d.secrets?.assertExist(secretNames(valid.payload));
    await this.d.channels?.assertExist(valid.notify);
    try {
      return await this.store.create(key, valid, actor, now);
    } catch (err) {
      if (err instanceof JobWriteRefused && err.reason === 'KEY_EXISTS') throw keyExists(key);
      throw unknownCalendar(err) ?? err;
    }
  }

  /**
   * Several new jobs at once, all or none (`cronql apply`'s creations, `createJobs`): every input
   * is checked by the rules `create` applies before anything is written, then one statement writes
   * them all with their notifications. An error names the input it is about (`details.index`,
   * `details.key`, and the key in the message). At most MAX_JOBS_PER_BATCH inputs.
   */
  async createMany(inputs: readonly CreateJobInput[], actor: string | null = null): Promise<JobRecord[]> {
    if (inputs.length > MAX_JOBS_PER_BATCH) {
      throw new CronqlError('BAD_USER_INPUT', `at most ${MAX_JOBS_PER_BATCH} jobs per call (got ${inputs.length}); send them in batches`, {
        field: 'inputs',
        max: MAX_JOBS_PER_BATCH,
      });
    }
    const now = this.d.clock.now();
    const seen = new Set<string>();
    const rows = inputs.map((input, index) => {
      try {
        const key = validateKey(input.key);
        if (seen.has(key)) throw new CronqlError('KEY_EXISTS', `the key "${key}" is listed twice`, { key });
        seen.add(key);
        return { key, fields: validateDefinition(input, { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now }) };
      } catch (err) {
        throw err instanceof CronqlError ? ofInput(err, index, input.key) : err;
      }
    });
    // Each input's secrets checked on its own, so that the error names the job (one lookup when all exist).
    const names = rows.flatMap((r) => [...secretNames(r.fields.payload)]);
    if (names.length) {
      try {
        await this.d.secrets?.assertExist(names);
      } catch (err) {
        if (!(err instanceof CronqlError)) throw err;
        for (const [index, row] of rows.entries()) {
          await this.d.secrets?.assertExist(secretNames(row.fields.payload)).catch((e: unknown) => {
            throw e instanceof CronqlError ? ofInput(e, index, row.key) : e;
          });
        }
        throw err;
      }
    }
    // Each input's channels checked on its own, so that the error names the job.
    for (const [index, row] of rows.entries()) {
      if (row.fields.notify.length === 0) continue;
      await this.d.channels?.assertExist(row.fields.notify).catch((e: unknown) => {
        throw e instanceof CronqlError ? ofInput(e, index, row.key) : e;
      });
    }
    try {
      return await this.store.createMany(rows, actor, now);
    } catch (err) {
      if (err instanceof JobWriteRefused && err.reason === 'KEY_EXISTS') {
        const index = rows.findIndex((r) => r.key === err.key);
        const e = keyExists(err.key ?? '(one of the keys)');
        throw index >= 0 ? ofInput(e, index, err.key) : e;
      }
      const calendar = unknownCalendar(err);
      if (calendar) {
        const index = rows.findIndex((r) => r.fields.calendars.includes(calendar.details!.calendar as string));
        throw index >= 0 ? ofInput(calendar, index, rows[index].key) : calendar;
      }
      throw err;
    }
  }

  async pause(id: string, reason: unknown, actor: string | null = null): Promise<JobRecord> {
    const why = validateReason(reason);
    return this.transition(id, [JobStatus.ACTIVE], { status: JobStatus.PAUSED, pauseReason: why }, actor, 'pause');
  }

  async resume(id: string, actor: string | null = null): Promise<JobRecord> {
    // A resumed job starts counting failures afresh (it may have been auto-paused).
    return this.transition(id, [JobStatus.PAUSED], { status: JobStatus.ACTIVE, pauseReason: null, consecutiveFailures: 0 }, actor, 'resume');
  }

  async retire(id: string, actor: string | null = null): Promise<JobRecord> {
    return this.transition(
      id,
      [JobStatus.ACTIVE, JobStatus.PAUSED],
      { status: JobStatus.RETIRED, pauseReason: null },
      actor,
      'retire',
    );
  }

  /** Atomically retires the job and activates a new version of it; returns the new version. */
  async createVersion(id: string, input: NewJobVersionInput, actor: string | null = null): Promise<JobRecord> {
    const old = await this.getOrThrow(id);
    if (old.status === JobStatus.RETIRED) {
      throw new CronqlError('INVALID_STATE', `job ${old.jobKey} v${old.version} is RETIRED; versions are made from the live one`, {
        status: old.status,
      });
    }
    const scheduleType = input.scheduleType ?? old.scheduleType;
    const switched = scheduleType !== old.scheduleType;
    const now = this.d.clock.now();
    const valid = validateDefinition(
      {
        target: input.target ?? old.target,
        scheduleType,
        // Switching schedule type drops the other type's field unless given.
        cronExpression: input.cronExpression !== undefined ? input.cronExpression : switched ? null : old.cronExpression,
        runAt: input.runAt !== undefined ? input.runAt : switched ? null : old.runAt,
        timezone: input.timezone ?? old.timezone,
        ...settingsOfNewVersion(input, settingsOfRecord(old)),
      },
      { targets: this.d.targets, maxPayloadBytes: this.d.maxPayloadBytes, now },
    );
    await this.d.secrets?.assertExist(secretNames(valid.payload));
    await this.d.channels?.assertExist(valid.notify);
    try {
      const [, created] = await this.store.supersede(old, valid, actor, now);
      return created;
    } catch (err) {
      if (err instanceof JobWriteRefused && err.reason === 'NOT_IN_STATE') throw invalidState(old, 'createJobVersion');
      if (err instanceof JobWriteRefused && err.reason === 'CONCURRENT') {
        throw new CronqlError('INVALID_STATE', `job ${old.jobKey} was changed concurrently; try again`);
      }
      throw unknownCalendar(err) ?? err;
    }
  }

  private async transition(
    id: string,
    from: JobStatus[],
    change: JobChange,
    actor: string | null,
    action: string,
  ): Promise<JobRecord> {
    const job = await this.getOrThrow(id);
    const updated = await this.store.transition(id, from, change, actor, this.d.clock.now());
    if (!updated) {
      const current = (await this.get(id)) ?? job;
      throw invalidState(current, action);
    }
    return updated;
  }
}

/** The most jobs `createMany` takes at once (a batch is one statement and one transaction). */
export const MAX_JOBS_PER_BATCH = 1_000;

/** An input's error, saying which input (its position and key). */
function ofInput(err: CronqlError, index: number, key: unknown): CronqlError {
  const named = typeof key === 'string' ? `job "${key}" (input ${index + 1})` : `input ${index + 1}`;
  return new CronqlError(err.code, `${named}: ${err.message}`, { ...err.details, index, ...(typeof key === 'string' ? { key } : {}) });
}

/** The database refused a calendar the job names: it does not exist (or was deleted meanwhile). */
function unknownCalendar(err: unknown): CronqlError | null {
  if (!(err instanceof JobWriteRefused) || err.reason !== 'UNKNOWN_CALENDAR') return null;
  return new CronqlError('UNKNOWN_CALENDAR', `calendar "${err.key ?? '?'}" does not exist; create it with setCalendar`, { field: 'calendars', calendar: err.key });
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
