import type { Logger } from '../logger.js';

/**
 * Whether this instance's database answers, as the maintenance duties last saw it. A duty that
 * finds it unavailable turns the outage on (the fire path then defers due slots to the ledger);
 * only the heartbeat turns it off again, once a beat went through and the deferred slots are
 * accounted for. While it is on, the other duties do not run: their statements would only queue
 * behind a database that does not answer.
 */
export class Outage {
  private on = false;

  constructor(
    private readonly log: Logger,
    private readonly tell: (outage: boolean) => void,
  ) {}

  get down(): boolean {
    return this.on;
  }

  begin(err: unknown): void {
    if (!this.on) this.log.warn({ err }, 'the database does not answer: slots are deferred until it does');
    this.on = true;
    this.tell(true);
  }

  end(): void {
    if (this.on) this.log.info('the database answers again');
    this.on = false;
    this.tell(false);
  }
}
