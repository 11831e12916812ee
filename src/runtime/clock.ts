import cron, { type ScheduledTask } from 'node-cron';
import { performance } from 'node:perf_hooks';
import { bounded } from '../domain/bounded.js';
import { MissedReason } from '../domain/enums.js';
import { MinHeap } from './min-heap.js';

/** A pending wake-up; `cancel()` is idempotent. */
export interface Alarm {
  cancel(): void;
}

/**
 * Time, injected. The runtime never reads `Date.now()` or sets timers itself: it asks the clock,
 * so tests drive time with a ManualClock and production uses the SystemClock.
 */
export interface Clock {
  now(): Date;
  /** Calls `fn` once, as soon as possible at or after `at`. */
  setAlarm(at: Date, fn: () => void): Alarm;
  /** Stops every pending alarm; the clock stays usable. */
  close(): void;
  /**
   * Why alarms are waking late right now: the wall clock jumped (CLOCK_JUMP), or time passed
   * without the process getting to run them (STALL: a blocked event loop, a paused machine).
   */
  lateReason(): MissedReason.STALL | MissedReason.CLOCK_JUMP;
  /**
   * Calls `fn` once the alarms due now have all been handed on and what they started is on its
   * way — and, with `laterAfter`, answered: an actor re-arms there, so that computing 10,000 next
   * slots holds up neither the statement that records 10,000 due ones nor the cores it runs on.
   */
  later(fn: () => void): void;
  /**
   * `later` work also waits for `settled` (the fire statements the alarms started answered, their
   * handlers entered), at most `LATER_WAIT_MS`. A clock whose `later` runs at once (ManualClock)
   * has nothing to wait for and need not implement it.
   */
  laterAfter?(settled: () => Promise<void>): void;
}

/**
 * The longest `later` work waits for `laterAfter`'s writes: a database that does not answer (an
 * outage, a statement that takes seconds) never holds the next alarms past this, so they are set
 * well before the next whole second (the shortest interval of a schedule).
 */
export const LATER_WAIT_MS = 250;

/** A change of the wall clock against the monotonic clock larger than this is a jump. */
const JUMP_MS = 1_000;

/** An alarm in a clock's heap; it is the `Alarm` handed out too (no wrapper object, no closure per alarm). */
class Entry implements Alarm {
  cancelled = false;

  constructor(
    readonly at: number,
    readonly seq: number,
    public fn: () => void,
    private readonly owner: { cancelEntry(entry: Entry): void },
  ) {}

  cancel(): void {
    this.owner.cancelEntry(this);
  }
}

const byTime = (a: Entry, b: Entry) => a.at - b.at || a.seq - b.seq;

/** The system clock's alarms of one instant, in the order they were set. */
interface Instant {
  readonly at: number;
  readonly alarms: Entry[];
}
const byInstant = (a: Instant, b: Instant) => a.at - b.at;
const NOOP = () => {};

/**
 * Alarms kept in one min-heap, woken by a single node-cron task that ticks every second (UTC,
 * whole seconds, which is the resolution of cron slots). Why one shared tick rather than one
 * node-cron task per job: node-cron serialises co-due fires and drops those later than its
 * tolerance, and it mishandles DST (docs/behaviour.md, time zones). Here thousands of co-due alarms wake in the
 * same tick (so the run store can commit them in one statement), a late or missed tick only
 * delays alarms (the next tick catches up, nothing is dropped), and the slot instants come from
 * cronql's own schedule math. Alarms already due fire on the next turn of the event loop.
 */
export class SystemClock implements Clock {
  /**
   * The instants alarms are set for, earliest first, each with its alarms in the order they were
   * set: thousands of co-due alarms are one heap entry, woken by one pop (10,000 alarms of one
   * instant popped one by one from a heap of 20,000 took 3–8 ms of the fire path, before the
   * slots' statement could leave; BENCHMARKS.md, "2026-11-26 (s8, lead)").
   */
  private heap = new MinHeap<Instant>(byInstant);
  private instants = new Map<number, Instant>();
  /** Alarms in the heap's instants, cancelled ones included. */
  private size = 0;
  private seq = 0;
  /** Cancelled alarms still in the heap (they leave it when due, or when compacted). */
  private cancelled = 0;
  private task: ScheduledTask | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** `later` work, run on the next turn of the event loop (after the turn's batches are sent). */
  private deferred: (() => void)[] = [];
  /** What `later` work waits for besides that turn (`laterAfter`). */
  private settled: (() => Promise<void>) | undefined;
  /** A timer for the earliest alarm when it falls between two ticks (a jitter offset, a retry's backoff). */
  private precise: NodeJS.Timeout | undefined;
  private preciseAt = Infinity;
  /** Wall clock minus monotonic clock at the last wake-up: it moves only when the wall clock jumps. */
  private offset = Date.now() - performance.now();
  private jumped = false;

  /** @param onError told of what an alarm callback threw (the other alarms still fire). */
  constructor(private readonly onError: (err: unknown) => void = (err) => console.error('cronql: an alarm callback threw', err)) {}

  now(): Date {
    return new Date();
  }

  lateReason(): MissedReason.STALL | MissedReason.CLOCK_JUMP {
    return this.jumped ? MissedReason.CLOCK_JUMP : MissedReason.STALL;
  }

  later(fn: () => void): void {
    if (this.deferred.push(fn) > 1) return;
    // After the immediates the alarms' work registered (the run store's batch is one of them).
    setImmediate(() => {
      const settled = this.settled;
      if (!settled) return this.runDeferred();
      // While the statements run, the database's backends have the machine's cores: 1,000 actors'
      // next slots (~2–4 ms of this thread) are computed after their answers, not beside them
      // (BENCHMARKS.md, "2026-11-27 (s11, lead)"). Whatever `settled` does — resolve, reject,
      // throw — the work runs, never later than the bound.
      void bounded((async () => settled())(), LATER_WAIT_MS)
        .catch(() => undefined)
        .then(() => this.runDeferred());
    });
  }

  laterAfter(settled: () => Promise<void>): void {
    this.settled = settled;
  }

  private runDeferred(): void {
    const work = this.deferred;
    this.deferred = [];
    for (const f of work) {
      try {
        f();
      } catch (err) {
        this.onError(err);
      }
    }
  }

  setAlarm(at: Date, fn: () => void): Alarm {
    const entry = new Entry(at.getTime(), this.seq++, fn, this);
    this.add(entry);
    if (entry.at <= Date.now()) this.scheduleImmediateDrain();
    else {
      this.ensureTicking();
      this.armPrecise();
    }
    return entry;
  }

  private add(entry: Entry): void {
    let instant = this.instants.get(entry.at);
    if (!instant) {
      instant = { at: entry.at, alarms: [] };
      this.instants.set(entry.at, instant);
      this.heap.push(instant);
    }
    instant.alarms.push(entry);
    this.size++;
  }

  /** An alarm's `cancel()`. */
  cancelEntry(entry: Entry): void {
    if (entry.cancelled) return;
    entry.cancelled = true;
    // What the callback holds (an actor, its job) is free at once, not when the entry leaves the heap.
    entry.fn = NOOP;
    // Jobs re-armed often with far-away slots would otherwise pile up cancelled alarms.
    if (++this.cancelled > 1_000 && this.cancelled * 2 >= this.size) {
      const live: Entry[] = [];
      for (const i of this.heap.toArray()) for (const e of i.alarms) if (!e.cancelled) live.push(e);
      live.sort(byTime);
      this.heap = new MinHeap<Instant>(byInstant);
      this.instants.clear();
      this.size = 0;
      this.cancelled = 0;
      for (const e of live) this.add(e);
    }
  }

  close(): void {
    // Alarms still held by their owners: a later cancel() of one must not count.
    for (const i of this.heap.toArray()) for (const e of i.alarms) e.cancelled = true;
    this.heap.clear();
    this.instants.clear();
    this.size = 0;
    this.cancelled = 0;
    this.task?.destroy();
    this.task = undefined;
    clearTimeout(this.precise);
    this.precise = undefined;
    this.preciseAt = Infinity;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private scheduleImmediateDrain(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = undefined;
      this.drain();
    });
  }

  /**
   * Slots are whole seconds and the tick wakes them; an alarm between two ticks (a jittered slot,
   * a retry due after its backoff) gets a timer of its own, for the earliest such alarm only.
   */
  private armPrecise(): void {
    const top = this.heap.peek();
    if (!top || top.at % 1000 === 0 || (this.precise && this.preciseAt <= top.at)) return;
    clearTimeout(this.precise);
    this.preciseAt = top.at;
    this.precise = setTimeout(() => {
      this.precise = undefined;
      this.preciseAt = Infinity;
      this.drain();
    }, Math.max(0, top.at - Date.now()));
  }

  private ensureTicking(): void {
    if (this.task) return;
    this.task = cron.schedule('* * * * * *', () => this.drain(), {
      timezone: 'UTC',
      name: 'cronql-clock',
      // A late tick is never a lost slot here (the heap keeps every alarm), so don't let
      // node-cron drop or log it.
      missedExecutionTolerance: 3_600_000,
      suppressMissedWarning: true,
    });
  }

  private drain(): void {
    const now = Date.now();
    const offset = now - performance.now();
    this.jumped = Math.abs(offset - this.offset) > JUMP_MS;
    this.offset = offset;
    for (let top = this.heap.peek(); top && top.at <= now; top = this.heap.peek()) {
      this.heap.pop();
      // An alarm set for this instant while its alarms fire goes to a new entry, fired after them.
      this.instants.delete(top.at);
      this.size -= top.alarms.length;
      for (const alarm of top.alarms) {
        if (alarm.cancelled) {
          // (Not below zero: a compaction while this instant's alarms fire no longer counts them.)
          if (this.cancelled > 0) this.cancelled--;
          continue;
        }
        alarm.cancelled = true; // fired: a later cancel() is a no-op
        try {
          alarm.fn();
        } catch (err) {
          // One alarm's error never stops the others; it is reported, not swallowed.
          this.onError(err);
        }
      }
    }
    while (this.heap.peek()?.alarms.every((a) => a.cancelled)) {
      const gone = this.heap.pop()!;
      this.instants.delete(gone.at);
      this.size -= gone.alarms.length;
      this.cancelled -= gone.alarms.length;
    }
    // Not while actors are about to re-arm (`later`): a new tick task costs, and ticks out of phase.
    if (this.size === 0 && this.task && this.deferred.length === 0) {
      this.task.destroy();
      this.task = undefined;
    }
    this.armPrecise();
  }
}

/** A clock that moves only when told to: `advance(ms)` / `set(date)` fire the alarms due. */
export class ManualClock implements Clock {
  private current: number;
  private readonly heap = new MinHeap<Entry>(byTime);
  private seq = 0;
  private reason: MissedReason.STALL | MissedReason.CLOCK_JUMP = MissedReason.STALL;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  setAlarm(at: Date, fn: () => void): Alarm {
    const entry = new Entry(at.getTime(), this.seq++, fn, this);
    this.heap.push(entry);
    // Due alarms fire asynchronously, as with the system clock.
    if (entry.at <= this.current) queueMicrotask(() => this.fireDue());
    return entry;
  }

  /** An alarm's `cancel()`. */
  cancelEntry(entry: Entry): void {
    entry.cancelled = true;
  }

  /** Moves time forward, firing due alarms in order (each at its own instant). */
  advance(ms: number): void {
    this.set(new Date(this.current + ms));
  }

  /**
   * Moves time forward at once, as after an event-loop stall or a suspended machine: alarms that
   * came due meanwhile fire late, all at the new time.
   */
  jump(to: Date | string, reason: MissedReason.STALL | MissedReason.CLOCK_JUMP = MissedReason.STALL): void {
    this.reason = reason;
    this.current = Math.max(this.current, new Date(to).getTime());
    this.fireDue();
  }

  /** Moves the wall clock backwards (an NTP correction, a clock set by hand); alarms stay set. */
  rewind(to: Date | string): void {
    this.current = Math.min(this.current, new Date(to).getTime());
  }

  lateReason(): MissedReason.STALL | MissedReason.CLOCK_JUMP {
    return this.reason;
  }

  /** At once: time moves only when told to, so nothing can come due in between. */
  later(fn: () => void): void {
    fn();
  }

  set(to: Date | string): void {
    this.reason = MissedReason.STALL;
    const target = new Date(to).getTime();
    for (let top = this.heap.peek(); top && top.at <= target; top = this.heap.peek()) {
      this.current = Math.max(this.current, top.at);
      this.fireDue();
    }
    this.current = Math.max(this.current, target);
  }

  /** Number of alarms still pending (tests use it to see that an actor is armed). */
  get pending(): number {
    return this.heap.toArray().filter((e) => !e.cancelled).length;
  }

  /** The instant of the earliest pending alarm. */
  get nextAlarmAt(): Date | undefined {
    const next = this.heap.toArray().filter((e) => !e.cancelled).sort((a, b) => a.at - b.at)[0];
    return next && new Date(next.at);
  }

  close(): void {
    this.heap.clear();
  }

  private fireDue(): void {
    for (let top = this.heap.peek(); top && top.at <= this.current; top = this.heap.peek()) {
      this.heap.pop();
      if (!top.cancelled) top.fn();
    }
  }
}
