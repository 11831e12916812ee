import { auditActor } from '../services/audit-actor.js';
import type { Logger } from '../logger.js';
import { Channel, type Notifier } from '../db/notifier.js';
import { OutboxStore, type ClaimedDelivery } from '../db/notification-outbox.js';
import type { Pool } from '../db/pool.js';
import { TriggerType } from '../domain/enums.js';
import { ChannelKind, TEST_EVENT, TEST_KIND, LEGACY_KIND, type AlertEvent } from '../domain/notifications.js';
import type { NotificationMetrics } from '../metrics/notifications.js';
import { createHttpTarget } from '../runtime/targets/builtin/http.js';
import type { TargetDefinition } from '../runtime/targets/target.js';
import type { ChannelService, OpenChannel } from '../services/channel.service.js';
import { renderBody, type AlertRecord } from './render.js';
import { legacySignature, standardSignature } from './signing.js';

export interface DelivererOptions {
  pool: Pool;
  channels: ChannelService;
  log: Logger;
  instanceId: string;
  now(): Date;
  /** Wakes the deliverer when alerts are written (the outbox channel); without it, it polls. */
  notifier?: Notifier;
  metrics?: NotificationMetrics;
  /** Let channels be loopback/private addresses (CRONQL_HTTP_ALLOW_PRIVATE). @default false */
  allowPrivate?: boolean;
  /** The dashboard's public base URL, for the links of Slack messages (CRONQL_PUBLIC_URL). */
  publicUrl?: string;
  /** The bounds of delivery (config.ts NOTIFICATIONS). */
  bounds: DeliveryBounds;
}

export interface DeliveryBounds {
  /** One attempt's HTTP bound. */
  timeoutMs: number;
  /** Attempts per delivery; past the last it is given up (logged, counted, the channel's lastError). */
  attempts: number;
  /** The first retry's delay; doubles each attempt, up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  /** How often the outbox is read without a notification (a notification lost, a retry due). */
  pollMs: number;
  /** Deliveries (channels) sent at once. */
  batch: number;
}

/** Past an attempt's HTTP bound, this much more before a claimed delivery is due again (its instance died). */
const CLAIM_MARGIN_MS = 20_000;

/**
 * Sends the outbox (db/notification-outbox.ts): each channel's alerts in order, one at a time,
 * at least once, with the same `webhook-id` on every attempt (the row's id), retried with
 * backoff, surviving restarts (the rows are the queue). Runs on every instance; a row is claimed
 * by one at a time. Woken by the outbox notification that the statements raising alerts send,
 * and by a timer for the next retry (or a slow poll): never from the fire path. Never throws.
 *
 * Each request is made through the `http` target (the same address guard, pinned to the checked
 * address), with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, and with a
 * secret `webhook-signature`); the env channel adds `X-Cronql-Signature` as it always did. The
 * channel's URL is a credential: logs and errors name its host only.
 */
export class Deliverer {
  private readonly store: OutboxStore;
  private readonly http: TargetDefinition;
  private readonly abort = new AbortController();
  private readonly quiet: Logger;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly o: DelivererOptions) {
    this.store = new OutboxStore(o.pool);
    this.http = createHttpTarget({ allowPrivate: o.allowPrivate });
    // The http target logs redirects with their URLs: a channel's URL must not reach a log.
    this.quiet = o.log.child({}, { level: 'silent' });
  }

  start(): void {
    this.o.notifier?.on(Channel.OUTBOX, () => this.kick());
    this.poll = setInterval(() => this.kick(), this.o.bounds.pollMs);
    this.poll.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }

  /** Deliveries pending in the outbox (the gauge); null when the database does not answer. */
  pending(): Promise<number | null> {
    return this.store.pendingCount().catch(() => null);
  }

  /** Sends what is due now (coalesced: a call during a round makes one more round). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rounds().finally(() => (this.running = undefined));
  }

  /** Resolves once nothing due is left (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      try {
        let sent = false;
        for (;;) {
          const claimed = await this.store.claimHeads(this.o.bounds.timeoutMs + CLAIM_MARGIN_MS, this.o.bounds.batch, this.o.channels.canSend({ fromEnv: true }));
          if (claimed.length === 0 || this.stopped) break;
          sent = true;
          await Promise.all(claimed.map((c) => this.attempt(c)));
        }
        // Only a round that sent something can have made a retry due before the next poll (an
        // idle poll is one statement; the timer armed by the round before still stands).
        if (sent && !this.stopped) this.arm(await this.store.nextDueInMs());
      } catch (err) {
        this.o.log.warn({ err }, 'notifications: could not read the outbox; the next poll retries');
      }
    } while (this.again && !this.stopped);
  }

  /** A timer for the next head due (a retry), when sooner than the poll. */
  private arm(ms: number | null): void {
    clearTimeout(this.timer);
    if (ms === null || ms >= this.o.bounds.pollMs) return;
    this.timer = setTimeout(() => this.kick(), Math.max(10, ms));
    this.timer.unref();
  }

  /**
   * A test delivery to `name` now, not behind the channel's queue, once (no retry): true when the
   * receiver answered 2xx; false with the channel's lastError saying why.
   */
  async test(name: string, actor: string | null = null): Promise<boolean | null> {
    const channel = await this.o.channels.store.get(name);
    if (!channel) return null;
    const claimed = await this.store.insertClaimed(name, TEST_EVENT, { channel: name }, this.o.now(), this.o.bounds.timeoutMs + CLAIM_MARGIN_MS, {
      actor: auditActor(actor),
      action: 'testNotificationChannel',
    });
    // Deleted between the read and the write: there is nothing to test.
    return claimed ? this.attempt(claimed, true) : null;
  }

  /** One attempt; never throws. True when delivered. */
  private async attempt(c: ClaimedDelivery, once = false): Promise<boolean> {
    const event = c.event;
    let channel: OpenChannel | undefined;
    try {
      channel = await this.o.channels.openSealed(c.channel);
      await this.send(channel, c);
      await this.store.delivered(c.id, this.o.now());
      this.o.metrics?.delivered(event);
      return true;
    } catch (err) {
      const error = describe(err, channel?.url);
      const last = once || c.attempt >= this.o.bounds.attempts;
      const retryInMs = last ? null : Math.min(this.o.bounds.maxRetryMs, this.o.bounds.retryMs * 2 ** (c.attempt - 1));
      this.o.metrics?.failed(event, last);
      try {
        await this.store.failed(c.id, error, retryInMs, this.o.now());
      } catch (e) {
        // The claim's bound makes the row due again: it is retried all the same.
        this.o.log.warn({ err: e, deliveryId: c.id }, 'notifications: could not record a failed attempt');
      }
      const fields = { channel: c.channel.name, host: c.channel.urlHost, event, deliveryId: c.id, attempt: c.attempt, error };
      if (last && !once) this.o.log.error(fields, 'notifications: delivery failed; given up after the last attempt');
      else this.o.log.warn({ ...fields, retryInMs }, 'notifications: delivery attempt failed');
      return false;
    }
  }

  private async send(channel: OpenChannel, c: ClaimedDelivery): Promise<void> {
    const alert: AlertRecord = { id: c.id, event: c.event as AlertEvent, data: c.data, at: c.createdAt };
    const body = renderBody(channel.kind, alert, { instanceId: this.o.instanceId, publicUrl: this.o.publicUrl });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (channel.kind === ChannelKind.WEBHOOK) {
      const timestamp = Math.floor(Date.now() / 1000); // this attempt's, on the wall clock: what receivers compare with theirs
      headers['webhook-id'] = c.id;
      headers['webhook-timestamp'] = String(timestamp);
      if (channel.secret) headers['webhook-signature'] = standardSignature(channel.secret, c.id, timestamp, body);
      headers['x-cronql-event'] = c.event === TEST_EVENT ? TEST_KIND : LEGACY_KIND[c.event as AlertEvent];
      if (channel.fromEnv && channel.secret) headers['x-cronql-signature'] = legacySignature(channel.secret, body);
    }
    await this.http.handler({
      payload: { url: channel.url, method: 'POST', headers, body, timeoutMs: this.o.bounds.timeoutMs },
      signal: this.abort.signal,
      log: this.quiet,
      // Not a run: nothing to report.
      progress: () => {},
      heartbeat: () => {},
      run: { id: c.id, jobId: 'notification', jobKey: `notification:${channel.name}`, jobVersion: 0, scheduledAt: c.createdAt, triggerType: TriggerType.MANUAL, attempt: c.attempt },
    });
  }
}

/** What went wrong, for logs and the channel's lastError: the URL never, its host at most. */
function describe(err: unknown, url: string | undefined): string {
  const code = (err as { code?: unknown }).code;
  let message = err instanceof Error ? err.message : String(err);
  if (url) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    for (const form of new Set([url, parsed?.href].filter((f): f is string => !!f))) message = message.split(form).join(parsed?.host ?? '(the channel)');
  }
  return `${typeof code === 'string' ? `${code}: ` : ''}${message}`.slice(0, 500);
}
