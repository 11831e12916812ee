import { Gauge, type Registry } from 'prom-client';
import type { PoolRecord } from '../domain/pools.js';

/**
 * Concurrency pools' metrics (docs/operations.md): each pool's RUNNING and waiting runs, cluster
 * wide, read from the database at scrape time — one statement for both gauges and every pool
 * (the two collects of one scrape share the read in flight), through the pools' partial index.
 */
export function poolMetrics(registry: Registry, read: () => Promise<PoolRecord[]>): void {
  let inFlight: Promise<PoolRecord[] | null> | null = null;
  const pools = (): Promise<PoolRecord[] | null> => {
    inFlight ??= read()
      .catch(() => null)
      .finally(() => setImmediate(() => (inFlight = null)));
    return inFlight;
  };
  const gauge = (name: string, help: string, value: (p: PoolRecord) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      async collect() {
        const rows = await pools();
        if (rows === null) return; // the database did not answer: the last values stand
        this.reset();
        for (const p of rows) this.set({ pool: p.name }, value(p));
      },
    });
  gauge('cronql_pool_running', 'Runs of each concurrency pool RUNNING now (all instances).', (p) => p.running);
  gauge('cronql_pool_waiting', 'Runs of each concurrency pool due and waiting PENDING for a place (all instances).', (p) => p.waiting);
}
