import { CronqlError } from '../errors.js';
import type { Pool } from '../db/pool.js';
import { loadCounts, loadSchedulableJobs, type SchedulableJob } from '../db/upcoming-jobs.js';
import { dueSlots, FAR_FUTURE, NO_CALENDARS, type CalendarsOf, type DueJob } from '../domain/due-slots.js';
import type { JobQuery } from '../db/job-store.js';
import type { JobSnapshot } from '../domain/job.js';
import { jitterOffsetMs } from '../schedule/jitter.js';
import { MinHeap } from '../runtime/min-heap.js';
import type { Clock } from '../runtime/clock.js';
import { decodeCursor, encodeCursor, pageSize, type Page } from './pagination.js';

/** A page of the timeline (no total: the window may hold any number of slots). */
export type UpcomingPage = Omit<Page<UpcomingSlot>, 'totalCount'>;
import { filtersNothing, jobMatches, toJobQuery, type JobFilter } from './job-filter.js';
import { EVERY_JOB, within, type Scope } from '../domain/scope.js';

/** One slot of one job in the upcoming timeline. */
export interface UpcomingSlot {
  jobId: string;
  slot: Date;
  /** When it starts: the slot plus the job's jitter offset. */
  dueAt: Date;
}

export interface UpcomingQuery {
  /** Default: now. */
  from?: Date | null;
  to: Date;
  filter?: JobFilter | null;
  first?: number | null;
  after?: string | null;
  /** The caller's scope: the jobs outside it are left out (docs/teams.md). */
  scope?: Scope;
}

/** The page size of `upcoming` when `first` is omitted or null. */
export const UPCOMING_PAGE_SIZE = 50;

/** A job as the timeline keeps it: what it shows and what decides its slots. */
interface Entry {
  job: JobSnapshot;
  due: DueJob;
  /** Jobs whose due slots change without a notification (skips counted down, runs started): read per request. */
  counted: boolean;
}

/** Jobs with the same due slots, read once for all of them: their ids sorted, and one job standing for them. */
interface Group {
  due: DueJob;
  ids: string[];
  /** The job ids of `counted` entries (a group of one). */
  counted: string | null;
  /**
   * The group's first due slot at or after `from` (ms; null: none), kept between requests: the
   * next request's start is usually between the two, and then the answer is the same without
   * computing it (a page asks every group for its first slot, and reads on only a few).
   */
  first?: { from: number; at: number | null };
}

/**
 * `upcoming`: every schedulable job's due slots in a window, in (slot, job id) order, paged by a
 * cursor on that pair. The jobs are kept in memory between requests and grouped by what decides
 * their slots (schedule, zone, bounds, pause end, calendars): a page is a k-way merge over one slot
 * iterator per group (a min-heap), and reads only the slots it returns — 10,000 jobs on four
 * schedules are four iterators. A job changed (the job-change notification, or this process's own
 * writes) is re-read at the next request; the counts that move without a notification (slots left
 * to skip, runs left under `maxRuns`) are read per request, for the few jobs that have them.
 */
export class UpcomingService {
  private entries: Map<string, Entry> | null = null;
  private readonly dirty = new Set<string>();
  private groups: Group[] | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly d: { pool: Pool; clock: Clock; calendarsOf?: CalendarsOf }) {}

  /** A job changed (or, without an id, anything may have): re-read at the next request. */
  invalidate(jobId?: string): void {
    if (jobId === undefined) {
      this.entries = null;
      this.groups = null;
      this.dirty.clear();
      return;
    }
    this.dirty.add(jobId);
  }

  async page(q: UpcomingQuery): Promise<UpcomingPage> {
    const size = pageSize(q.first, UPCOMING_PAGE_SIZE);
    const now = this.d.clock.now();
    const from = q.from ?? now;
    if (!(q.to instanceof Date) || Number.isNaN(q.to.getTime()) || Number.isNaN(from.getTime())) {
      throw new CronqlError('BAD_USER_INPUT', 'from and to must be instants', { field: 'to' });
    }
    if (q.to.getTime() < from.getTime()) {
      throw new CronqlError('BAD_USER_INPUT', `to (${q.to.toISOString()}) is before from (${from.toISOString()})`, { field: 'to' });
    }
    const query = toJobQuery(q.filter ?? {});
    // The caller's scope narrows the filter's selector: its jobs only.
    const filter = { ...query, selector: within(q.scope ?? EVERY_JOB, query.selector) };
    const position = decodeCursor(q.after);
    await this.refresh();
    const groups = await this.withCounts(filtered(this.groupsNow(), this.entries!, filter));
    const start = position && position.at.getTime() > from.getTime() ? position.at : from;
    const nodes: UpcomingSlot[] = [];
    merge(groups, start, q.to, now, position, size + 1, nodes, this.entries!);
    const shown = nodes.slice(0, size);
    const cursors = shown.map((n) => encodeCursor({ at: n.slot, id: n.jobId }));
    return { nodes: shown, cursors, hasNextPage: nodes.length > size, endCursor: cursors.at(-1) ?? null };
  }

  /** Loads every job on first use, then re-reads those changed since. One refresh at a time. */
  private async refresh(): Promise<void> {
    while (this.entries === null || this.dirty.size > 0) {
      this.refreshing ??= (async () => {
        try {
          if (this.entries === null) {
            this.dirty.clear();
            const all = await loadSchedulableJobs(this.d.pool);
            this.entries = new Map(all.map((s) => [s.job.id, entryOf(s, this.d.calendarsOf ?? NO_CALENDARS)]));
          } else {
            const ids = [...this.dirty];
            this.dirty.clear();
            const found = new Map((await loadSchedulableJobs(this.d.pool, ids)).map((s) => [s.job.id, s]));
            for (const id of ids) {
              const s = found.get(id);
              if (s) this.entries.set(id, entryOf(s, this.d.calendarsOf ?? NO_CALENDARS));
              else this.entries.delete(id);
            }
          }
          this.groups = null;
        } finally {
          this.refreshing = null;
        }
      })();
      await this.refreshing;
    }
  }

  private groupsNow(): Group[] {
    this.groups ??= groupsOf(this.entries!.values());
    return this.groups;
  }

  /** The groups with the counts of their counted jobs as they are now. */
  private async withCounts(groups: Group[]): Promise<Group[]> {
    const ids = groups.flatMap((g) => (g.counted ? [g.counted] : []));
    if (ids.length === 0) return groups;
    const counts = await loadCounts(this.d.pool, ids);
    return groups.map((g) => {
      const c = g.counted ? counts.get(g.counted) : undefined;
      return c ? { ...g, due: { ...g.due, ...c } } : g;
    });
  }
}

function entryOf(s: SchedulableJob, calendarsOf: CalendarsOf): Entry {
  const due: DueJob = { ...s.job, skipRemaining: s.skipRemaining, runsLeft: s.runsLeft, calendars: calendarsOf(s.job) };
  return { job: s.job, due, counted: s.skipRemaining > 0 || s.runsLeft !== null };
}

/** What decides a job's due slots, as one string: jobs that share it share their slots. */
function dueKey(j: DueJob): string {
  return JSON.stringify([
    j.status, j.scheduleType, j.cronExpression, j.cronExpressions, j.runAt?.getTime(), j.timezone, j.everyMs, j.anchorAt?.getTime(),
    j.startAt?.getTime(), j.endAt?.getTime(), j.pausedUntil?.getTime(), j.calendars.map((c) => c.name),
  ]);
}

function groupsOf(entries: Iterable<Entry>): Group[] {
  const byKey = new Map<string, Group>();
  const groups: Group[] = [];
  for (const e of entries) {
    if (e.counted) {
      groups.push({ due: e.due, ids: [e.job.id], counted: e.job.id });
      continue;
    }
    const key = dueKey(e.due);
    const g = byKey.get(key);
    if (g) g.ids.push(e.job.id);
    else byKey.set(key, { due: e.due, ids: [e.job.id], counted: null });
  }
  groups.push(...byKey.values());
  for (const g of groups) g.ids.sort();
  return groups;
}

/** The groups narrowed to the jobs the filter lets through (a group is kept whole when the filter says nothing). */
function filtered(groups: Group[], entries: Map<string, Entry>, f: JobQuery): Group[] {
  if (filtersNothing(f)) return groups;
  const keep = (j: JobSnapshot) => jobMatches(j, f);
  const out: Group[] = [];
  for (const g of groups) {
    const ids = g.ids.filter((id) => keep(entries.get(id)!.job));
    if (ids.length) out.push({ ...g, ids });
  }
  return out;
}

interface Head {
  at: number;
  group: Group;
  /** Its slots after `at`; null until the group is read past its first slot. */
  slots: Generator<Date> | null;
}

/**
 * The k-way merge: up to `limit` (slot, job) pairs from `start` to `to`, after `position`, in
 * (slot, job id) order, into `out`.
 */
function merge(groups: Group[], start: Date, to: Date, now: Date, position: { at: Date; id: string } | undefined, limit: number, out: UpcomingSlot[], entries: Map<string, Entry>): void {
  const heap = new MinHeap<Head>((a, b) => a.at - b.at);
  const from = start.getTime();
  for (const group of groups) {
    // A group whose slots depend on now (skips, runs left) is read afresh; the others from their memo.
    const memo = group.counted ? undefined : group.first;
    let at: number | null;
    if (memo && memo.from <= from && (memo.at === null || from <= memo.at)) at = memo.at;
    else {
      at = dueSlots(group.due, start, FAR_FUTURE, now).next().value?.getTime() ?? null;
      if (!group.counted) group.first = { from, at };
    }
    if (at !== null && at <= to.getTime()) heap.push({ at, group, slots: null });
  }
  const after = position?.at.getTime();
  while (heap.size > 0 && out.length < limit) {
    const at = heap.peek()!.at;
    const due: Head[] = [];
    while (heap.size > 0 && heap.peek()!.at === at) due.push(heap.pop()!);
    // The jobs due at this instant, in id order (each group's ids are sorted).
    let ids = due.length === 1 ? due[0].group.ids : due.flatMap((h) => h.group.ids).sort();
    if (at === after) ids = ids.slice(upperBound(ids, position!.id));
    const slot = new Date(at);
    for (const id of ids) {
      if (out.length >= limit) break;
      const jitter = entries.get(id)!.job.jitterSeconds;
      const offset = jitterOffsetMs(id, slot, jitter);
      out.push({ jobId: id, slot, dueAt: offset === 0 ? slot : new Date(at + offset) });
    }
    for (const h of due) {
      // The group's slots after this one, read from here on (its first was known already).
      const slots = h.slots ?? dueSlots(h.group.due, new Date(at + 1), to, now);
      const next = slots.next();
      if (!next.done) heap.push({ at: next.value.getTime(), group: h.group, slots });
    }
  }
}

/** The index of the first id greater than `id` in sorted `ids`. */
function upperBound(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
