/**
 * The vocabulary of concurrency pools (docs/behaviour.md, "Concurrency pools"): a name shared by
 * jobs and a limit on how many of their runs are RUNNING at once, across every instance.
 */

/** A pool's name: letters, digits and . _ -, starting with a letter or digit, at most 64 characters. */
export const POOL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The largest limit of a pool (the smallest is 1). */
export const MAX_POOL_LIMIT = 10_000;

/** A pool as stored, with what it holds now. */
export interface PoolRecord {
  name: string;
  limit: number;
  /** Runs of the pool RUNNING now. */
  running: number;
  /** Runs of the pool due and waiting PENDING for a free place. */
  waiting: number;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string | null;
}

/** What `Run.waitingFor` says of a due PENDING run of a pool: "pool billing-api: 5/5 running". */
export const waitingForPool = (pool: string, running: number, limit: number): string => `pool ${pool}: ${running}/${limit} running`;
