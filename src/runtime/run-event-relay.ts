import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { Channel, notifyAll, type Notifier } from '../db/notifier.js';
import { RunStatus } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import type { RunRecord } from '../domain/run.js';
import { asOf } from '../db/runs/record.js';
import { loadRuns } from '../db/run-loading.js';
import type { RunChange, RunEvents } from './run-events.js';
import { ownPrefix, parseEnvelope } from './relay-message.js';

/** One change as it travels between instances: ids and states only (NOTIFY payloads are small). */
interface WireChange {
  /** run id */
  r: string;
  /** status after the change */
  s: RunStatus;
  /** status before (null on creation) */
  p: RunStatus | null;
  /** changedAt, epoch ms */
  t: number;
}

interface WireMessage {
  /** instance that made the changes */
  i: string;
  c: WireChange[];
}

/** NOTIFY payloads must stay under 8000 bytes; a change takes about 100. */
const CHANGES_PER_NOTIFY = 60;
/** Changes sent by one statement: 20 messages. */
const CHANGES_PER_STATEMENT = 20 * CHANGES_PER_NOTIFY;

/**
 * Carries run state changes between instances over LISTEN/NOTIFY, so a subscriber on any
 * instance (an API-only one included) sees every run. Local changes are sent in batches, one
 * NOTIFY per turn of the event loop rather than one per change; changes from other instances
 * are read back (one query per message) and re-emitted locally, in the order they were made.
 */
export class RunEventRelay {
  private outbox: WireChange[] = [];
  private flushing = false;
  /** Flushes run one after another: two NOTIFYs in flight on two connections could swap. */
  private sending: Promise<void> = Promise.resolve();
  private inbox: Promise<void> = Promise.resolve();
  private readonly remote = new WeakSet<RunChange>();
  private off: (() => void) | undefined;
  /** How every message this instance sends begins (`JSON.stringify` keeps the key order). */
  private readonly ownPrefix: string;

  constructor(
    private readonly pool: Pool,
    private readonly events: RunEvents,
    private readonly notifier: Notifier,
    private readonly instanceId: string,
    private readonly log: Logger,
  ) {
    this.ownPrefix = ownPrefix(instanceId);
  }

  start(): void {
    this.off = this.events.on((change) => {
      if (this.remote.has(change)) return;
      this.outbox.push({ r: change.run.id, s: change.run.status, p: change.previousStatus, t: change.changedAt.getTime() });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => (this.sending = this.sending.then(() => this.flush())));
      }
    });
    this.notifier.on(Channel.RUN_CHANGED, (payload) => {
      // Serialised: the changes of one run are re-emitted in the order they were made.
      this.inbox = this.inbox.then(() => this.receive(payload));
    });
  }

  async stop(): Promise<void> {
    this.off?.();
    this.sending = this.sending.then(() => this.flush());
    await this.sending;
    await this.inbox;
  }

  private async flush(): Promise<void> {
    const batch = this.outbox;
    this.outbox = [];
    this.flushing = false;
    // A burst (10,000 co-due runs make 20,000 changes) goes a few dozen messages per statement,
    // not one round trip per message, and in slices so that the fire path's statements interleave.
    for (let i = 0; i < batch.length; i += CHANGES_PER_STATEMENT) {
      const payloads: string[] = [];
      for (let j = i; j < Math.min(batch.length, i + CHANGES_PER_STATEMENT); j += CHANGES_PER_NOTIFY) {
        payloads.push(JSON.stringify({ i: this.instanceId, c: batch.slice(j, j + CHANGES_PER_NOTIFY) } satisfies WireMessage));
      }
      try {
        await notifyAll(this.pool, Channel.RUN_CHANGED, payloads);
      } catch (err) {
        this.log.warn({ err }, 'could not relay run changes to other instances');
      }
    }
  }

  /**
   * A message is a hint: anyone who can connect to the database can send one. Its shape is
   * checked, the runs it names are read back, and a change is re-emitted only if the row bears
   * it out — the row is in that state, or was (its timestamp for that state is the message's);
   * a forged "SUCCEEDED" for a FAILED run, or a change with a made-up instant, is dropped.
   */
  private async receive(payload: string): Promise<void> {
    // Our own changes come back too: recognised by the prefix this relay writes, unparsed.
    if (payload.startsWith(this.ownPrefix)) return;
    try {
      const message = parseWire(payload);
      if (!message) {
        this.log.warn('ignored a malformed run-change notification');
        return;
      }
      // Our own changes, or nobody here but the relay itself to tell.
      if (message.i === this.instanceId || this.events.listenerCount <= 1) return;
      const ids = [...new Set(message.c.map((c) => c.r))];
      const rows = new Map((await loadRuns(this.pool, ids)).map((run) => [run.id, run]));
      for (const c of message.c) {
        const current = rows.get(c.r);
        if (!current || !borneOut(current, c)) continue;
        const change: RunChange = { run: asOf(current, c.s), previousStatus: c.p, changedAt: new Date(c.t), remote: true };
        this.remote.add(change);
        this.events.emit(change);
      }
    } catch (err) {
      this.log.warn({ err }, 'could not read relayed run changes');
    }
  }
}

const STATUSES = new Set<string>(Object.values(RunStatus));
/** What may come before each state (docs/product.md, lifecycles). */
const BEFORE: Record<RunStatus, (RunStatus | null)[]> = {
  [RunStatus.PENDING]: [null],
  // RUNNING → RUNNING: a progress report (domain/run.ts, `progressed`).
  [RunStatus.RUNNING]: [RunStatus.PENDING, RunStatus.RUNNING],
  [RunStatus.SUCCEEDED]: [RunStatus.RUNNING],
  [RunStatus.FAILED]: [RunStatus.RUNNING, RunStatus.PENDING],
  [RunStatus.CANCELED]: [RunStatus.RUNNING, RunStatus.PENDING],
  [RunStatus.SKIPPED]: [null, RunStatus.PENDING],
};

/** The message, if it has the shape this relay sends; null otherwise. */
function parseWire(payload: string): WireMessage | null {
  const envelope = parseEnvelope(payload, 'c', CHANGES_PER_NOTIFY);
  if (!envelope) return null;
  for (const c of envelope.items as Partial<WireChange>[]) {
    if (typeof c !== 'object' || c === null || !isUuid(c.r) || !STATUSES.has(c.s as string)) return null;
    if (!(c.p === null || STATUSES.has(c.p as string)) || !BEFORE[c.s as RunStatus].includes(c.p as RunStatus | null)) return null;
    if (typeof c.t !== 'number' || !Number.isFinite(c.t)) return null;
  }
  return { i: envelope.instanceId, c: envelope.items as WireChange[] };
}

/** Whether the row bears the change out: it is, or was, in that state at that instant. */
function borneOut(run: RunRecord, c: WireChange): boolean {
  const at = (d: Date | null) => d !== null && d.getTime() === c.t;
  switch (c.s) {
    case RunStatus.PENDING:
      return at(run.createdAt);
    case RunStatus.RUNNING:
      // A progress report is borne out by the beat it was written with (a later one supersedes it).
      return c.p === RunStatus.RUNNING ? at(run.heartbeatAt) : at(run.startedAt);
    default:
      // Terminal states never change: the row's must be the message's.
      return run.status === c.s && (at(run.updatedAt) || at(run.finishedAt));
  }
}
