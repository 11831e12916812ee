/**
 * What the co-due benchmarks share (bench/co-due.ts, bench/tracing.ts): N jobs whose slots fall
 * due together on a `*∕20 s` grid, written straight into a fresh database, and the next slot of
 * that grid far enough away for the process to be ready.
 */
import { createCronql } from '../../src/app.js';
import { freshDatabase, log } from './bench.js';

/** The jobs' grid: a slot every 20 s. */
export const EVERY_S = 20;

/** The slot at least 2 s away on the jobs' `*∕20 s` grid: subscribers are connected by then. */
export const nextSlot = () => Math.ceil((Date.now() + 2_000) / (EVERY_S * 1000)) * EVERY_S * 1000;

/** A fresh database holding `n` ACTIVE jobs of `target` on the grid, in `zone`; `payload(i)` is SQL over the series `i`. */
export async function jobsDatabase(serverUrl: string, n: number, zone: string, target: string, payload: (i: string) => string, name = `cronql_bench_codue_${n}`) {
  const db = await freshDatabase(serverUrl, name);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api', tracing: false });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload)
     SELECT gen_random_uuid(), 'bench-' || i, 1, $4, 'RECURRING', $2, $3, 'ACTIVE', ${payload('i')}
     FROM generate_series(1, $1) AS i`,
    [n, `*/${EVERY_S} * * * * *`, zone, target],
  );
  await setup.pool.query('ANALYZE');
  await setup.stop();
  return db;
}
