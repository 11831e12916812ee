import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { JobStatus } from '../domain/enums.js';
import type { JobDefinitionFields } from '../domain/job.js';
import { JobDefinition } from './entities/job-definition.entity.js';
import { Channel } from './notifier.js';

/** The fields of a new job version that the services validated. */
export type JobFields = JobDefinitionFields & Pick<JobDefinition, 'finalSlotAt'>;

/** The job's columns for its fields (the retry policy is five columns). */
function columns({ retry, ...rest }: JobFields) {
  return {
    ...rest,
    retryMaxAttempts: retry?.maxAttempts ?? null,
    retryBackoff: retry?.backoff ?? null,
    retryDelaySeconds: retry?.delaySeconds ?? null,
    retryMaxDelaySeconds: retry?.maxDelaySeconds ?? null,
    retryOn: retry?.retryOn ?? null,
  };
}

/** A state change of a job the caller asked for (its status, and what goes with it). */
export type JobChange = Partial<Pick<JobDefinition, 'status' | 'pauseReason' | 'consecutiveFailures'>>;

/** Why a write changed nothing: the key is taken, or the job was not in an expected state. */
export type JobWriteRefusal = 'KEY_EXISTS' | 'NOT_IN_STATE' | 'CONCURRENT';

export class JobWriteRefused extends Error {
  constructor(readonly reason: JobWriteRefusal) {
    super(reason);
  }
}

/**
 * The writer of job definitions' state by the admin's hand (creating, versioning, pausing,
 * resuming, retiring). Each write is one transaction: a conditional update on the expected state
 * (two admins or instances cannot both win), the NOTIFY that tells every scheduler instance, and
 * then `publish` with the rows it changed — the one place this process's own runtime hears of
 * it. What a job becomes because of its runs (signals, auto-pause, a one-time job's retirement) is
 * written with the run's end, by the run store, in the same statement.
 */
export class JobStore {
  constructor(
    private readonly orm: MikroORM,
    /** Told of every job row a write changed, after its transaction committed. */
    private readonly publish: (jobs: readonly JobDefinition[]) => void,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** Version 1 of a new key, ACTIVE. @throws JobWriteRefused('KEY_EXISTS') */
  async create(key: string, fields: JobFields, actor: string | null, now: Date): Promise<JobDefinition> {
    const em = this.em();
    const job = em.create(JobDefinition, {
      jobKey: key,
      version: 1,
      ...columns(fields),
      status: JobStatus.ACTIVE,
      createdBy: actor,
      updatedBy: actor,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await em.transactional(async (tx) => {
        tx.persist(job);
        await tx.flush();
        await notify(tx, job.id);
      });
    } catch (err) {
      // The key has a version 1 already (unique (job_key, version)), whoever created it when.
      if (err instanceof UniqueConstraintViolationException) throw new JobWriteRefused('KEY_EXISTS');
      throw err;
    }
    this.publish([job]);
    return job;
  }

  /**
   * Retires `old` and activates its next version, atomically; returns [retired, created].
   * @throws JobWriteRefused('NOT_IN_STATE') when `old` is RETIRED by now, ('CONCURRENT') when
   * another version of the key was made meanwhile.
   */
  async supersede(old: JobDefinition, fields: JobFields, actor: string | null, now: Date): Promise<[JobDefinition, JobDefinition]> {
    const em = this.em();
    let created!: JobDefinition;
    let retired!: JobDefinition;
    try {
      await em.transactional(async (tx) => {
        const n = await tx.nativeUpdate(
          JobDefinition,
          { id: old.id, status: { $ne: JobStatus.RETIRED } },
          { status: JobStatus.RETIRED, pauseReason: null, updatedBy: actor, updatedAt: now },
        );
        if (n === 0) throw new JobWriteRefused('NOT_IN_STATE');
        // The live version is the newest one: every new version retires the one it replaces.
        created = tx.create(JobDefinition, {
          jobKey: old.jobKey,
          version: old.version + 1,
          ...columns(fields),
          status: JobStatus.ACTIVE,
          supersedes: tx.getReference(JobDefinition, old.id),
          createdBy: actor,
          updatedBy: actor,
          createdAt: now,
          updatedAt: now,
        });
        await tx.flush();
        retired = (await tx.findOne(JobDefinition, { id: old.id }, { refresh: true }))!;
        await notify(tx, old.id);
        await notify(tx, created.id);
      });
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new JobWriteRefused('CONCURRENT');
      throw err;
    }
    this.publish([retired, created]);
    return [retired, created];
  }

  /** `change` if the job's status is one of `from`; the updated row, or null when it was not. */
  async transition(id: string, from: JobStatus[], change: JobChange, actor: string | null, now: Date): Promise<JobDefinition | null> {
    let updated: JobDefinition | null = null;
    await this.em().transactional(async (tx) => {
      const n = await tx.nativeUpdate(JobDefinition, { id, status: { $in: from } }, { ...change, updatedBy: actor, updatedAt: now });
      if (n === 0) return;
      updated = await tx.findOne(JobDefinition, { id }, { refresh: true });
      await notify(tx, id);
    });
    if (updated) this.publish([updated]);
    return updated;
  }
}

function notify(em: EntityManager, jobId: string): Promise<unknown> {
  return em.execute('SELECT pg_notify(?, ?)', [Channel.JOB_CHANGED, jobId]);
}
