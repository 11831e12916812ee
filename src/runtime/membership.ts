import type { Logger } from '../logger.js';
import { liveSchedulers } from '../db/instances.js';
import { loadActiveJobs, type ArmableJob } from '../db/job-loading.js';
import type { Pool } from '../db/pool.js';
import { ownedPartitions, partitionOfKey } from '../domain/partitions.js';
import type { JobSnapshot } from '../domain/job.js';
import type { RuntimeEvents } from './events.js';
import type { Scheduler } from './scheduler.js';

export interface MembershipOptions {
  pool: Pool;
  /** This instance's id in `cron_instances`. */
  instanceId: string;
  /** A scheduler silent this long is no longer a member. */
  lostAfterMs: number;
  /** How many scheduler instances arm each job (0: every instance arms every job). */
  jobReplicas: number;
  scheduler: Scheduler;
  log: Logger;
  events: RuntimeEvents;
  /** Whether the runtime is armed (a rebalance before, or while stopping, does nothing). */
  armed(): boolean;
}

/**
 * Which jobs this instance arms: the partitions (src/domain/partitions.ts) it owns among the live
 * schedulers (docs/scaling.md), computed from the instances table, and the rebalance that follows
 * when the members change.
 */
export class Membership {
  /** The partitions whose jobs this instance arms; null until known (then: every job). */
  private owned: Set<number> | null = null;
  /** The members the current share was computed for (the share changes only when they do). */
  private members = '';
  /** Rebalances run one after another. */
  private rebalancing: Promise<void> = Promise.resolve();

  constructor(private readonly o: MembershipOptions) {}

  /** How many partitions this instance arms (null: not known yet). */
  get partitions(): number | null {
    return this.owned?.size ?? null;
  }

  /** Whether this instance arms `job` (its partition is one of this instance's). */
  owns(job: Pick<JobSnapshot, 'jobKey'>): boolean {
    return this.owned === null || this.owned.has(partitionOfKey(job.jobKey));
  }

  /**
   * The first share, computed among every beating scheduler: instances starting together each
   * load only their own share (the armed ones keep arming everything until then). Returns the
   * ACTIVE jobs of that share, with their ledger.
   */
  async join(): Promise<ArmableJob[]> {
    this.owned = await this.share(true);
    return loadActiveJobs(this.o.pool, this.owned);
  }

  /** This instance's ACTIVE jobs, read again (after notifications were lost). */
  reload(): Promise<ArmableJob[]> {
    return loadActiveJobs(this.o.pool, this.owned);
  }

  /**
   * Recomputes the assignment from the instances table (on a membership notification, and every
   * sweep): disarms the jobs of partitions this instance lost, arms those of the partitions it
   * gained with their ledger (a slot that fell in the handover is accounted for like any missed
   * slot; with replicas, another instance fired it). Never throws.
   */
  rebalance(): Promise<void> {
    this.rebalancing = this.rebalancing.then(async () => {
      const { scheduler, log, armed } = this.o;
      if (!armed() || this.owned === null) return;
      try {
        const next = await this.share();
        const gained = [...next].filter((p) => !this.owned!.has(p));
        const lost = [...this.owned].filter((p) => !next.has(p));
        if (gained.length === 0 && lost.length === 0) return;
        this.owned = next;
        const lostSet = new Set(lost);
        for (const id of scheduler.jobIds()) {
          const job = scheduler.job(id);
          if (job && lostSet.has(partitionOfKey(job.jobKey))) scheduler.remove(id);
        }
        const jobs = gained.length ? await loadActiveJobs(this.o.pool, new Set(gained)) : [];
        if (!armed()) return;
        scheduler.upsertAll(jobs.filter(({ job }) => this.owns(job)));
        const event = { gained: gained.length, lost: lost.length, partitions: next.size, jobs: scheduler.jobIds().length };
        log.info(event, 'rebalanced the jobs among the schedulers');
        this.o.events.emit('rebalanced', event);
      } catch (err) {
        log.warn({ err }, 'could not rebalance the jobs; the next sweep tries again');
      }
    });
    return this.rebalancing;
  }

  /**
   * The partitions this instance arms (unchanged members: the same share). Running, among the
   * armed schedulers and itself: an instance drops a partition only once the one taking it over
   * has armed it. Starting, among every beating scheduler.
   */
  private async share(starting = false): Promise<Set<number>> {
    const { pool, instanceId, lostAfterMs, jobReplicas } = this.o;
    const members = await liveSchedulers(pool, lostAfterMs, starting);
    const key = members.filter((m) => m !== instanceId).join('\u0000');
    if (this.owned && key === this.members) return this.owned;
    this.members = key;
    return ownedPartitions(instanceId, members, jobReplicas);
  }
}
