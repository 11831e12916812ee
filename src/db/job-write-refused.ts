/** Why a job write changed nothing: the key is taken, or the job was not in an expected state. */
export type JobWriteRefusal = 'KEY_EXISTS' | 'NOT_IN_STATE' | 'CONCURRENT' | 'UNKNOWN_CALENDAR' | 'UNKNOWN_JOB' | 'DEPENDENCY_CYCLE' | 'UNKNOWN_POOL';

/**
 * A job write the database refused (db/job-store.ts). A module of its own: the services test for
 * it without loading the store, which loads MikroORM (opened on first use, see app.ts).
 */
export class JobWriteRefused extends Error {
  /** @param key the key refused, when the write was of several (KEY_EXISTS); the calendar's name (UNKNOWN_CALENDAR); the upstream's key (UNKNOWN_JOB); the job's key (DEPENDENCY_CYCLE); the pool's name (UNKNOWN_POOL) */
  constructor(readonly reason: JobWriteRefusal, readonly key?: string | null) {
    super(reason);
  }
}

/**
 * The database's refusal of a job naming a calendar or a concurrency pool that does not exist (the
 * triggers of migrations 20261127010000_calendars and 20261128040000_concurrency_pools), from a pg
 * error or MikroORM's copy of one; null for anything else.
 */
export function unknownCalendarIn(err: unknown): JobWriteRefused | null {
  const e = err as { code?: string; constraint?: string; detail?: string } | null;
  if (e?.code !== '23503') return null;
  if (e.constraint === 'cron_job_definitions_calendars_known') return new JobWriteRefused('UNKNOWN_CALENDAR', e.detail ?? null);
  if (e.constraint === 'cron_job_definitions_pool_known') return new JobWriteRefused('UNKNOWN_POOL', e.detail ?? null);
  return null;
}

/**
 * The database's refusal of a job version whose upstreams name an unknown key or close a cycle
 * (the trigger of migration 20261128030000_dependencies), from a pg error or MikroORM's copy of
 * one; null for anything else.
 */
export function dependencyRefusalIn(err: unknown): JobWriteRefused | null {
  const e = err as { code?: string; constraint?: string; detail?: string } | null;
  if (e?.code === '23503' && e.constraint === 'cron_job_definitions_after_known') return new JobWriteRefused('UNKNOWN_JOB', e.detail ?? null);
  if (e?.code === '23514' && e.constraint === 'cron_job_definitions_after_acyclic') return new JobWriteRefused('DEPENDENCY_CYCLE', e.detail ?? null);
  return null;
}
