import { Counter, Gauge, type Registry } from 'prom-client';

/** What the deliverer reports (alerts/deliverer.ts). */
export interface NotificationMetrics {
  delivered(event: string): void;
  /** An attempt failed; `gaveUp`: it was the last one (the alert is dropped). */
  failed(event: string, gaveUp: boolean): void;
}

/**
 * The outbox's metrics (docs/operations.md): deliveries this instance made and attempts that
 * failed, by event (a fixed list), and the deliveries pending in the whole cluster, read at
 * scrape time (a partial index keeps the count cheap).
 */
export function notificationMetrics(registry: Registry, pending: () => Promise<number | null>): NotificationMetrics {
  const registers = [registry];
  const delivered = new Counter({
    name: 'cronql_notifications_delivered_total',
    help: 'Alert deliveries this instance made (the receiver answered 2xx), by event.',
    labelNames: ['event'] as const,
    registers,
  });
  const failed = new Counter({
    name: 'cronql_notifications_failed_total',
    help: 'Delivery attempts of this instance that failed, by event and whether it was the last attempt (final="true": the alert was given up).',
    labelNames: ['event', 'final'] as const,
    registers,
  });
  new Gauge({
    name: 'cronql_notifications_pending',
    help: 'Alert deliveries waiting in the outbox (all channels, all instances).',
    registers,
    async collect() {
      const n = await pending().catch(() => null);
      if (n !== null) this.set(n);
    },
  });
  return {
    delivered: (event) => delivered.inc({ event }),
    failed: (event, gaveUp) => failed.inc({ event, final: String(gaveUp) }),
  };
}
