import { CronqlError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import type { Pool } from '../db/pool.js';
import { PoolInUse, PoolStore, type PoolRow } from '../db/pool-store.js';
import { MAX_POOL_LIMIT, POOL_NAME } from '../domain/pools.js';
import { auditActor } from './audit-actor.js';

export type { PoolRow } from '../db/pool-store.js';

export interface PoolDeps {
  pool: Pool;
  clock: Clock;
}

const badName = () =>
  new CronqlError('BAD_USER_INPUT', 'a concurrency pool name is 1–64 letters, digits and . _ -, starting with a letter or digit', { field: 'name' });

/**
 * Concurrency pools (docs/behaviour.md, "Concurrency pools"): set (create, or change the limit),
 * delete (refused while a live job names it: POOL_IN_USE), read with what each holds. Bad input
 * changes nothing. Who starts is decided by the claim in the database, never here.
 */
export class PoolService {
  private readonly store: PoolStore;

  constructor(private readonly d: PoolDeps) {
    this.store = new PoolStore(d.pool);
  }

  list(): Promise<PoolRow[]> {
    return this.store.list(this.d.clock.now());
  }

  /** The pools of these names that exist (the others are left out). */
  getMany(names: readonly string[]): Promise<PoolRow[]> {
    return this.store.getMany(names.filter((n) => POOL_NAME.test(n)), this.d.clock.now());
  }

  /** Creates the pool or sets its limit; a lower limit lets running runs end, a higher one starts waiting runs at once. */
  async set(name: unknown, limit: unknown, actor: string | null = null): Promise<PoolRow> {
    if (typeof name !== 'string' || !POOL_NAME.test(name)) throw badName();
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_POOL_LIMIT) {
      throw new CronqlError('BAD_USER_INPUT', `limit must be an integer from 1 to ${MAX_POOL_LIMIT}`, { field: 'limit', max: MAX_POOL_LIMIT });
    }
    return this.store.upsert(name, limit, actor, this.d.clock.now(), { actor: auditActor(actor), action: 'setConcurrencyPool', details: { limit } });
  }

  /** False when there was no such pool. @throws CronqlError POOL_IN_USE while a live job names it. */
  async delete(name: unknown, actor: string | null = null): Promise<boolean> {
    if (typeof name !== 'string' || !POOL_NAME.test(name)) throw badName();
    try {
      return await this.store.delete(name, { actor: auditActor(actor), action: 'deleteConcurrencyPool' }, this.d.clock.now());
    } catch (err) {
      if (err instanceof PoolInUse) {
        throw new CronqlError('POOL_IN_USE', `concurrency pool "${name}" is used by job "${err.jobKey ?? '?'}"; remove it from every live job first (a new version without it)`, {
          pool: name,
          job: err.jobKey,
        });
      }
      throw err;
    }
  }
}
