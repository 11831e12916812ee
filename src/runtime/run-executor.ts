import type { Logger } from '../logger.js';
import { FailureCode, RunStatus } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import type { Finish, RunLimits, RunStore } from '../db/run-store.js';
import { isRetryable } from '../db/pool.js';
import type { TargetRegistry } from './targets/registry.js';
import type { TargetContext, TargetRunInfo } from './targets/target.js';
import { redactSecrets, resolveReferences, secretNames } from '../secrets/references.js';
import { redactingLogger } from '../secrets/redacting-logger.js';
import { capturingLogger } from './run-logger.js';
import type { RunLogWriter } from './run-log-writer.js';
import { RunBeats, type RunBeatsOptions } from './run-beats.js';
import type { RunTrace } from '../tracing/tracing.js';

/** Where the values of the secrets a payload references come from (read when the run starts). */
export interface SecretResolver {
  /** @throws an error with code UNKNOWN_SECRET when one does not exist */
  resolve(names: Iterable<string>): Promise<Map<string, string>>;
}

const NO_SECRETS: ReadonlyMap<string, string> = new Map();

/** Tells those waiting for the run as entered (`whenEntered`), once. */
function told(entry: InFlight, run: RunRecord | null): void {
  const waiting = entry.onEntered;
  if (!waiting) return;
  entry.onEntered = undefined;
  for (const resolve of waiting) resolve(run);
}

/** The promise that settles once the run's end is recorded (made on demand). */
const doneOf = (entry: InFlight): Promise<void> => (entry.done ??= new Promise<void>((resolve) => (entry.settle = resolve)));

/**
 * A run's abort: its handler's signal, and the promise its handler is raced against — rejected
 * by the executor itself when it aborts (no listener on the signal per run: `addEventListener`
 * is a measurable part of starting 10,000 co-due handlers). Both are made when first asked for:
 * most handlers never read their signal, a synchronous one is never raced, and an
 * `AbortController` and two promises per run were ~5 % of the CPU between a co-due batch's
 * commit and its last handler (10,000 co-due, BENCHMARKS.md).
 */
class Abort {
  /** Why the run was aborted, once it was. */
  reason: AbortReason | undefined;
  private controller: AbortController | undefined;
  private race: Promise<never> | undefined;
  private fail: ((reason: unknown) => void) | undefined;

  /** The handler's signal: aborted with `reason` (already, if the run was aborted before). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Rejects with the reason once the run is aborted. */
  get aborted(): Promise<never> {
    if (!this.race) {
      this.race = this.reason ? Promise.reject(this.reason) : new Promise<never>((_, reject) => (this.fail = reject));
      this.race.catch(() => {});
    }
    return this.race;
  }

  abort(reason: AbortReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    this.fail?.(reason);
  }
}

/** Whether a handler's result is a promise (or any thenable) to wait for. */
const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

/** Why a run's signal was aborted; the outcome recorded depends on it. */
class AbortReason extends Error {
  constructor(
    readonly kind: 'TIMEOUT' | 'HEARTBEAT_TIMEOUT' | 'CANCELED' | 'SHUTDOWN',
    message: string,
    /** The run's failure details, if the reason has any. */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AbortError';
  }
}

const MAX_MESSAGE = 2_000;
/** How long a drain waits for the ends of aborted runs to be recorded. */
const DRAIN_RECORD_MS = 2_000;
/**
 * The runs of one answer of the database (a co-due part, up to 10,000) start together, in one
 * turn of the event loop, once every run of the answer is known. Not in slices that yield between
 * them: measured at 50,000 co-due (BENCHMARKS.md), the turns in between went to delivering the
 * first runs' changes to subscribers, and the last handler was entered seconds later.
 */

/** Turns what a handler threw into the run's failure fields (code, message, details; docs/api.md). */
function describeFailure(err: unknown): Pick<Finish, 'failureCode' | 'failureMessage' | 'failureDetails'> {
  try {
    return describe(err);
  } catch {
    // A thrown value that cannot even be read (a throwing getter, a null-prototype cycle).
    return { failureCode: FailureCode.HANDLER_ERROR, failureMessage: 'the handler threw a value that cannot be described', failureDetails: null };
  }
}

function describe(err: unknown): Pick<Finish, 'failureCode' | 'failureMessage' | 'failureDetails'> {
  if (err instanceof Error || (typeof err === 'object' && err !== null)) {
    const e = err as { code?: unknown; message?: unknown; details?: unknown; name?: unknown; stack?: unknown };
    const code = typeof e.code === 'string' && e.code.length > 0 ? e.code : FailureCode.HANDLER_ERROR;
    const message = withoutNul(String(e.message ?? err)).slice(0, MAX_MESSAGE);
    let details: unknown = e.details;
    if (details === undefined) details = { name: typeof e.name === 'string' ? e.name : 'Error' };
    return { failureCode: withoutNul(code).slice(0, 200), failureMessage: message, failureDetails: safeJson(details) };
  }
  return { failureCode: FailureCode.HANDLER_ERROR, failureMessage: withoutNul(String(err)).slice(0, MAX_MESSAGE), failureDetails: null };
}

/** PostgreSQL text and jsonb cannot hold NUL characters. */
const withoutNul = (text: string): string => text.replaceAll('\u0000', '');

/** Outputs and details go to jsonb: anything that does not serialise is stored as its string. */
function safeJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'string' ? withoutNul(v) : v))) ?? null;
  } catch {
    return { unserializable: Object.prototype.toString.call(value) };
  }
}

/**
 * A copy of a payload for its handler (the run's snapshot is shared: events, the job's actor).
 * A snapshot is JSON (it comes from a jsonb column or a GraphQL input): copied as such, which is
 * several times cheaper than `structuredClone` (a serialiser round trip: ~4 % of the CPU of
 * 10,000 co-due starts, BENCHMARKS.md); anything else goes through `structuredClone`.
 */
function copyPayload(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string') seen(value);
    return value;
  }
  const copy = copyJson(value, 0);
  if (copy !== NOT_JSON) return copy;
  referenced = true; // not JSON: the copy's strings were not all seen
  return structuredClone(value);
}

/** The start of a `${secrets.NAME}` reference (`secrets/references.ts`). */
const REFERENCE_START = '${secrets.';
const NO_NAMES: ReadonlySet<string> = new Set();
/** Whether the last copy saw a string (or key) that may hold a secret reference. */
let referenced = false;
const seen = (text: string): void => {
  if (!referenced && text.includes(REFERENCE_START)) referenced = true;
};

const NOT_JSON = Symbol('not JSON');
/** Deeper than this, the copy is left to `structuredClone` (a JSON snapshot is never this deep). */
const MAX_JSON_DEPTH = 64;

function copyJson(value: object, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) return NOT_JSON;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') seen(v);
      const c = v === null || typeof v !== 'object' ? v : copyJson(v, depth + 1);
      if (c === NOT_JSON) return NOT_JSON;
      out[i] = c;
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return NOT_JSON;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // JSON may hold an own "__proto__" key: assigning it would set the copy's prototype.
    if (key === '__proto__') return NOT_JSON;
    seen(key);
    const v: unknown = (value as Record<string, unknown>)[key];
    if (typeof v === 'string') seen(v);
    const c = v === null || typeof v !== 'object' ? v : copyJson(v, depth + 1);
    if (c === NOT_JSON) return NOT_JSON;
    out[key] = c;
  }
  return out;
}

/** What the runs in flight share: where their beats and ends go, the clock, where their lines go. */
interface Shared {
  store: RunStore;
  now: () => Date;
  log: Logger;
  logs: RunLogWriter | undefined;
}

/**
 * A run in flight here. One object per run, holding what its start needs: its abort (`Abort`),
 * what its beats need (`RunBeatsOptions`) and its `ctx.log` — no closure, no promise per run
 * until something waits for it (`done`): the fire path starts thousands together, and what it
 * allocates per run before the handlers are entered is paid in garbage collection (BENCHMARKS.md,
 * "Co-due: the Node CPU of the fire path").
 */
class InFlight extends Abort implements RunBeatsOptions {
  /** Settles once the run's end is recorded: made when first asked for (most runs are never waited on). */
  done?: Promise<void>;
  settle?: () => void;
  /** When its handler was entered (its `startedAt`), and the run as entered, once it was. */
  enteredAt?: Date;
  entered?: RunRecord;
  /** Who waits for the run as entered (`whenEntered`; made when first asked for): null if it ended never entered. */
  onEntered?: ((run: RunRecord | null) => void)[];
  beats?: RunBeats;
  /** The secrets its payload resolved (redacted from what it reports, logs, returns and throws). */
  secrets: ReadonlyMap<string, string> = NO_SECRETS;
  /** Its `ctx.log`: the child logger (kept with the run's lines, redacted), made when the handler first asks (most never log). */
  private child: Logger | undefined;

  constructor(
    readonly run: RunRecord,
    readonly limits: RunLimits,
    readonly trace: RunTrace | undefined,
    private readonly shared: Shared,
  ) {
    super();
  }

  get store(): RunStore {
    return this.shared.store;
  }

  get now(): () => Date {
    return this.shared.now;
  }

  get heartbeatTimeoutSeconds(): number | null {
    return this.limits.heartbeatTimeoutSeconds ?? null;
  }

  /** The handler has been silent for its heartbeat timeout: the run is aborted. */
  silent(lastBeatAt: Date): void {
    const seconds = this.limits.heartbeatTimeoutSeconds;
    this.abort(new AbortReason('HEARTBEAT_TIMEOUT', `the handler did not beat for ${seconds} s (heartbeatTimeoutSeconds)`, {
      heartbeatTimeoutSeconds: seconds,
      lastBeatAt: lastBeatAt.toISOString(),
      settledBy: 'runner',
    }));
  }

  /** Whether the handler asked for its logger (its lines are then closed before the end). */
  get logOpened(): boolean {
    return this.child !== undefined;
  }

  log(): Logger {
    if (!this.child) {
      const { run, secrets } = this;
      const { log, logs } = this.shared;
      const child = log.child({ runId: run.id, jobKey: run.jobKey, target: run.target });
      // Kept with the run inside the redaction: the run's log never holds a secret's value.
      const kept = logs ? capturingLogger(child, logs.open(run.id)) : child;
      this.child = secrets.size > 0 ? redactingLogger(kept, secrets) : kept;
    }
    return this.child;
  }
}

/**
 * What a handler is given (`TargetContext`). A class, so that its two getters (`signal`, `log`:
 * made on demand) are on its prototype: an object literal with getters defines them at every run,
 * a slow path of the engine (~1.5 % of the CPU of 10,000 co-due starts).
 */
class HandlerContext implements TargetContext {
  readonly #entry: InFlight;
  readonly progress: TargetContext['progress'];
  readonly heartbeat: TargetContext['heartbeat'];

  constructor(
    readonly payload: unknown,
    entry: InFlight,
    beats: RunBeats,
    readonly traceparent: string | undefined,
    readonly run: TargetRunInfo,
  ) {
    this.#entry = entry;
    this.progress = beats.progress;
    this.heartbeat = beats.heartbeat;
  }

  get signal(): AbortSignal {
    return this.#entry.signal;
  }

  get log(): Logger {
    return this.#entry.log();
  }
}

/**
 * Runs claimed (RUNNING) runs: resolves the target, gives the handler an AbortSignal that fires on
 * the job's timeout, on cancelRun and on shutdown, and records the terminal state. Keeps the
 * in-flight runs so they can be canceled and drained.
 */
export class RunExecutor {
  private readonly inFlight = new Map<string, InFlight>();
  /** Runs executed but whose handler is not started yet (the rest of the answer is being read). */
  private toStart: InFlight[] = [];
  /**
   * While the handlers of one answer are being entered: the runs entered so far, whose
   * bookkeeping (the run as entered, the store's entry instant) waits until the last is entered.
   */
  private slice: InFlight[] | undefined;
  /** Set once drained: recordings still failing then give up (recovery settles those runs). */
  private stopped = false;
  /** What the runs in flight share. */
  private readonly shared: Shared;

  constructor(
    private readonly store: RunStore,
    private readonly targets: TargetRegistry,
    private readonly log: Logger,
    private readonly secrets?: SecretResolver,
    /** Told of each run whose end is recorded. */
    private readonly ended: (run: RunRecord, status: RunStatus) => void = () => {},
    /** The runtime's clock: a run's `startedAt` is the instant its handler is entered, on it. */
    private readonly now: () => Date = () => new Date(),
    /** Where handlers' `ctx.log` lines are kept with their runs (docs/run-logs.md); none: the process log only. */
    private readonly logs?: RunLogWriter,
  ) {
    this.shared = { store, now, log, logs };
  }

  get activeCount(): number {
    return this.inFlight.size;
  }

  /** Ids of the runs in flight on this instance. */
  runIds(): string[] {
    return [...this.inFlight.keys()];
  }

  /** Resolves when the runs in flight now have settled. */
  async whenIdle(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()].map(doneOf));
  }

  /**
   * The run as its handler was entered (`startedAt` the entry instant), once it was; null for a
   * run not in flight here, or one that ended without its handler being entered (a missing secret,
   * canceled first). A run-now answers with it: the `startedAt` its row and its RUNNING change hold.
   */
  whenEntered(runId: string): Promise<RunRecord | null> {
    const entry = this.inFlight.get(runId);
    if (!entry) return Promise.resolve(null);
    if (entry.entered) return Promise.resolve(entry.entered);
    return new Promise((resolve) => (entry.onEntered ??= []).push(resolve));
  }

  /** Resolves when the run (if in flight here) has ended and its end is recorded. */
  whenEnded(runId: string): Promise<void> {
    const entry = this.inFlight.get(runId);
    return entry ? doneOf(entry) : Promise.resolve();
  }

  /**
   * Starts a RUNNING run in the background (`whenEnded` waits for its terminal state to be
   * recorded). `trace`: the run's spans (tracing on), ended with the handler and the run.
   */
  execute(run: RunRecord, limits: RunLimits, trace?: RunTrace): void {
    const entry = new InFlight(run, limits, trace, this.shared);
    // In flight from now on: it can be aborted, waited for and drained before its handler starts.
    this.inFlight.set(run.id, entry);
    // The first run of an answer schedules the start of all: a microtask queued behind the
    // answer's other outcomes, so each handler starts knowing the whole batch is claimed.
    if (this.toStart.push(entry) === 1) queueMicrotask(() => this.startAll());
  }

  private startAll(): void {
    const runs = this.toStart;
    this.toStart = [];
    const slice: InFlight[] = [];
    this.slice = slice;
    try {
      for (const entry of runs) void this.runHandler(entry);
    } finally {
      this.slice = undefined;
      // After the last handler of the answer is entered: each run as entered, its entry instant
      // handed to the store (written with its next write) and its beats' record. Before any end
      // of these runs: an end waits a microtask at least (`runHandler`), and this is synchronous.
      for (const entry of slice) this.entered(entry);
    }
  }

  /** The run's handler was entered at `entry.enteredAt`: the run as entered, told to the store and its beats. */
  private entered(entry: InFlight): void {
    const at = entry.enteredAt!;
    const entered: RunRecord = { ...entry.run, startedAt: at, updatedAt: at };
    entry.entered = entered;
    told(entry, entered);
    this.store.started(entered.id, at, entered);
    entry.beats!.adopt(entered);
  }

  /** Aborts an in-flight run on this instance (cancelRun already recorded CANCELED). */
  abort(runId: string, kind: 'CANCELED' | 'SHUTDOWN', message: string): boolean {
    const entry = this.inFlight.get(runId);
    if (!entry) return false;
    entry.abort(new AbortReason(kind, message));
    return true;
  }

  /**
   * Waits for the in-flight runs up to `graceMs`, then aborts the rest with SHUTDOWN. A handler
   * is raced against its signal, so an aborted run settles at once even if the handler ignores it.
   */
  async drain(graceMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    const all = () => Promise.allSettled([...this.inFlight.values()].map(doneOf));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (!timedOut) return;
    for (const id of this.inFlight.keys()) {
      this.abort(id, 'SHUTDOWN', `cronql shut down before the run finished (grace period ${graceMs} ms)`);
    }
    // Aborted handlers settle at once (they are raced against their signal); what is left is
    // recording their end, which a database outage could stretch: bounded too.
    await Promise.race([all(), sleep(DRAIN_RECORD_MS)]);
    this.stopped = true;
  }

  /**
   * Runs the run's handler and records its end; never rejects (what throws is logged). One async
   * function per run (its end's recording included): each promise costs, at 10,000 co-due runs.
   */
  private async runHandler(entry: InFlight): Promise<void> {
    const { run, trace } = entry;
    const cut = entry;
    const { timeoutSeconds, captureBytes } = entry.limits;
    let outcome: Finish | undefined;
    try {
      const definition = this.targets.get(run.target);
      if (!definition) {
        // The target was removed from the registry after the job was created.
        outcome = {
          status: RunStatus.FAILED,
          failureCode: FailureCode.UNKNOWN_TARGET,
          failureMessage: `target "${run.target}" is not in the registry of this instance`,
        };
        await this.recordEnd(run, outcome);
        return;
      }
      // `${secrets.NAME}` references resolve in the handler's own copy only; every value resolved
      // is redacted from what the handler returns, throws and logs.
      referenced = false;
      let payload: unknown = copyPayload(run.payloadSnapshot);
      let secrets: ReadonlyMap<string, string> = NO_SECRETS;
      // Looked for only when the copy saw the start of a reference (most payloads have none).
      const names = referenced ? secretNames(payload) : NO_NAMES;
      if (names.size > 0) {
        try {
          if (!this.secrets) throw Object.assign(new Error('no secrets are available to this runtime'), { code: FailureCode.UNKNOWN_SECRET });
          secrets = await this.secrets.resolve(names);
          payload = resolveReferences(payload, secrets);
        } catch (err) {
          const unknown = (err as { code?: unknown }).code === FailureCode.UNKNOWN_SECRET;
          outcome = {
            status: RunStatus.FAILED,
            failureCode: unknown ? FailureCode.UNKNOWN_SECRET : FailureCode.HANDLER_ERROR,
            failureMessage: unknown ? (err as Error).message : `could not read the secrets the payload references: ${withoutNul(String((err as Error).message))}`,
          };
          await this.recordEnd(run, outcome);
          return;
        }
      }
      entry.secrets = secrets;
      let timer: NodeJS.Timeout | undefined;
      if (timeoutSeconds) {
        timer = setTimeout(
          () => cut.abort(new AbortReason('TIMEOUT', `the run exceeded its timeout of ${timeoutSeconds} s`)),
          timeoutSeconds * 1000,
        );
      }
      // The run in flight is its beats' options (its store, clock, secrets, logger, and its abort when silent).
      const beats = new RunBeats(entry);
      entry.beats = beats;
      /** Whether the handler was entered among the others of its answer (`startAll`): its bookkeeping follows them. */
      let sliced = false;
      try {
        // Aborted before its start (canceled, shut down while its answer was read): not entered at all.
        if (cut.reason) await cut.aborted;
        // The run's startedAt: stamped as its handler is entered (the store records it with the run's next write).
        const enteredAt = this.now();
        entry.enteredAt = enteredAt;
        beats.entered(run, enteredAt);
        // The run as entered (one record, shared by its announcement, its beats and its end) is
        // made once every handler of the answer is entered; alone, now.
        if (this.slice) {
          this.slice.push(entry);
          sliced = true;
        } else this.entered(entry);
        // A synchronous throw lands in the catch below like a rejection.
        const result: unknown = definition.handler(new HandlerContext(payload, entry, beats, trace?.enter(), {
          id: run.id,
          jobId: run.jobId,
          jobKey: run.jobKey,
          jobVersion: run.jobVersion,
          scheduledAt: run.scheduledAt,
          triggerType: run.triggerType,
          attempt: run.attempt,
          captureBytes,
        }));
        // A handler that ignores its signal still loses the race against it; one that returned
        // (a synchronous handler) has nothing to race.
        const output = isThenable(result) ? await Promise.race([result, cut.aborted]) : result;
        // A handler that returned at once: its end is recorded once the other handlers of its
        // answer, and those of the fire statements still in flight, are entered.
        if (sliced) {
          sliced = false;
          await this.store.afterFires();
        }
        outcome = { status: RunStatus.SUCCEEDED, output: safeJson(output) };
      } catch (err) {
        const reason = cut.reason;
        if (reason instanceof AbortReason) {
          outcome =
            reason.kind === 'CANCELED'
              ? { status: RunStatus.CANCELED, failureCode: FailureCode.CANCELED, failureMessage: reason.message }
              : { status: RunStatus.FAILED, failureCode: reason.kind, failureMessage: reason.message, failureDetails: reason.details };
        } else {
          outcome = { status: RunStatus.FAILED, ...describeFailure(err) };
        }
      } finally {
        clearTimeout(timer);
      }
      // A handler that threw at once: the same (the run as entered is made after the answer's last entry).
      if (sliced) await this.store.afterFires();
      // The outcome is decided: no beat counts (nor the heartbeat timer) from here on, and the
      // handler's last report goes with the end (it may still be waiting for its write).
      const ended = beats.end(entry.entered ?? run);
      const recorded = secrets.size > 0 ? redactSecrets(outcome, secrets) : outcome;
      outcome = recorded;
      trace?.left(recorded);
      // The run's lines are stored before its end is recorded (and published): a reader or a
      // subscriber who learns that it ended has every line. Immediate for a run that did not log.
      if (entry.logOpened) await this.logs?.close(run.id);
      // `recordEnd`, its common case inline (one async function per run, not two).
      let failed: { err: unknown } | undefined;
      try {
        await this.store.finish(ended, recorded);
      } catch (err) {
        failed = { err };
      }
      if (failed) await this.recordEndAgain(ended, recorded, failed.err);
      else this.ended(ended, recorded.status);
    } catch (err) {
      this.log.error({ err, runId: run.id }, 'run executor failed');
    } finally {
      // The run's span ends when its end is written (or given up on): the span says how it ended here.
      if (trace && outcome) trace.end(outcome);
      this.inFlight.delete(run.id);
      told(entry, entry.entered ?? null);
      entry.settle?.();
    }
  }

  /**
   * Records the end of a run, retrying with backoff (up to 30 s apart) while the database is
   * unreachable: a run whose end is never recorded would stay RUNNING and block its job
   * (overlap). After shutdown it gives up; recovery settles the run at the next start. An error
   * that retrying cannot cure is answered by recording the run alone (outside its batch), and
   * then, if that fails too, as FAILED without its output.
   */
  private async recordEnd(run: RunRecord, outcome: Finish): Promise<void> {
    try {
      await this.store.finish(run, outcome);
    } catch (err) {
      return this.recordEndAgain(run, outcome, err);
    }
    this.ended(run, outcome.status);
  }

  /** `recordEnd` once its first write (in a batch) threw `err`: on its own, as the error allows. */
  private async recordEndAgain(run: RunRecord, outcome: Finish, err: unknown): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (!isRetryable(err) && outcome.failureCode !== FailureCode.RECORD_ERROR) {
        // The first time, once more alone: the batch may have failed for another run.
        if (attempt > 1) {
          this.log.error({ err, runId: run.id }, 'the outcome of a run cannot be stored; recording it as FAILED');
          outcome = {
            status: RunStatus.FAILED,
            failureCode: FailureCode.RECORD_ERROR,
            failureMessage: `the run ended (${outcome.status}) but its outcome could not be stored: ${withoutNul(String((err as Error).message))}`,
          };
        }
      } else if (this.stopped || !isRetryable(err)) {
        this.log.error({ err, runId: run.id }, 'could not record the end of a run; recovery will settle it');
        return;
      } else {
        if (attempt === 1) this.log.warn({ err, runId: run.id }, 'could not record the end of a run; retrying');
        await sleep(Math.min(30_000, 200 * 2 ** (attempt - 1)));
      }
      try {
        await this.store.finishAlone(run, outcome);
        this.log.info({ runId: run.id, attempts: attempt + 1 }, 'recorded the end of a run');
        this.ended(run, outcome.status);
        return;
      } catch (again) {
        err = again;
      }
    }
  }
}

/** A timer that does not keep the process alive. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
