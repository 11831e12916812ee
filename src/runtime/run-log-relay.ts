import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { Channel, type Notifier } from '../db/notifier.js';
import { readRanges } from '../db/run-logs.js';
import type { RunLogEvents } from './run-log-events.js';
import { decodeRanges, ownPrefix } from './run-log-wire.js';

/**
 * Brings lines of run logs written by other instances to this process's subscribers: the writer
 * of each instance notifies the ranges it stored (in the statement that stored them); here the
 * ranges of the runs someone follows are read back, one statement per message, and published in
 * order. Nothing is read for runs nobody here follows. A message is only a hint (anyone who can
 * connect may send one): what is published is what the table holds.
 */
export class RunLogRelay {
  private inbox: Promise<void> = Promise.resolve();
  private readonly own: string;

  constructor(
    private readonly pool: Pool,
    private readonly events: RunLogEvents,
    private readonly notifier: Notifier,
    instanceId: string,
    private readonly log: Logger,
  ) {
    this.own = ownPrefix(instanceId);
  }

  start(): void {
    this.notifier.on(Channel.RUN_LOGS, (payload) => {
      // Our own lines were published when they were stored.
      if (payload.startsWith(this.own)) return;
      // Serialised: a run's lines are published in the order they were written.
      this.inbox = this.inbox.then(() => this.receive(payload));
    });
  }

  async stop(): Promise<void> {
    await this.inbox;
  }

  private async receive(payload: string): Promise<void> {
    try {
      const message = decodeRanges(payload);
      if (!message) {
        this.log.warn('ignored a malformed run-log notification');
        return;
      }
      const wanted = message.ranges.filter((r) => this.events.follows(r.runId));
      if (wanted.length === 0) return;
      this.events.publish(await readRanges(this.pool, wanted));
    } catch (err) {
      // A subscriber fills the gap from the table with its next lines or at the run's end.
      this.log.warn({ err }, 'could not read relayed run log lines');
    }
  }
}
