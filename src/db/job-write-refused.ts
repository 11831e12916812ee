/** Why a job write changed nothing: the key is taken, or the job was not in an expected state. */
export type JobWriteRefusal = 'KEY_EXISTS' | 'NOT_IN_STATE' | 'CONCURRENT';

/**
 * A job write the database refused (db/job-store.ts). A module of its own: the services test for
 * it without loading the store, which loads MikroORM (opened on first use, see app.ts).
 */
export class JobWriteRefused extends Error {
  /** @param key the key refused, when the write was of several (KEY_EXISTS) */
  constructor(readonly reason: JobWriteRefusal, readonly key?: string | null) {
    super(reason);
  }
}
