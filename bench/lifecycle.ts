/**
 * Lifecycle throughput: N co-due jobs with a no-op handler, from the slot to every run's end
 * committed (SCHEDULED → RUNNING → SUCCEEDED, with the job's signals moved by the same
 * statements); runs per second = N / that time. Baseline, same run and database: the floor of the
 * same two transitions — one batched INSERT of N RUNNING rows and one UPDATE of them to
 * SUCCEEDED — as runs per second.
 *
 *   BENCH_LIFECYCLE=10000 node dist/bench/lifecycle.js
 */
import pg from 'pg';
import { createCronql } from '../src/app.js';
import { freshDatabase, log, report, until } from './lib/bench.js';
import { benchServer } from './server.js';

const SIZES = (process.env.BENCH_LIFECYCLE ?? '10000').split(',').map(Number);
const EVERY_S = 20;

async function scenario(serverUrl: string, n: number): Promise<{ rate: number; floorRate: number; ended: number }> {
  const db = await freshDatabase(serverUrl, `cronql_bench_lifecycle_${n}`);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status)
     SELECT gen_random_uuid(), 'life-' || i, 1, 'noop', 'RECURRING', $2, 'ACTIVE' FROM generate_series(1, $1) AS i`,
    [n, `*/${EVERY_S} * * * * *`],
  );
  await setup.pool.query('ANALYZE');
  await setup.stop();

  const cronql = createCronql({ databaseUrl: db.url, log, role: 'all', retentionDays: 0, targets: { noop: async () => null } });
  await cronql.start();
  const slot = Math.ceil((Date.now() + 1_000) / (EVERY_S * 1000)) * EVERY_S * 1000;
  let ended = 0;
  let lastEnd = 0;
  let lastRunning = 0;
  const endsAt: number[] = [];
  const all = new Promise<void>((resolve) => {
    cronql.events.on((c) => {
      if (c.run.scheduledAt.getTime() !== slot) return;
      if (c.run.status === 'RUNNING') lastRunning = Date.now();
      if (c.run.status !== 'SUCCEEDED') return;
      lastEnd = Date.now();
      if (process.env.BENCH_DEBUG && (endsAt.length === 0 || endsAt[endsAt.length - 1] !== lastEnd)) endsAt.push(lastEnd);
      if (++ended === n) resolve();
    });
  });
  await Promise.race([all, until(slot + 60_000)]);
  await cronql.stop();
  if (process.env.BENCH_DEBUG) console.log(`all RUNNING at +${lastRunning - slot} ms; ends published at ${endsAt.map((t) => `+${t - slot}`).join(', ')} ms`);
  const rate = (ended / (lastEnd - slot)) * 1000;

  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const ids = (await pool.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id as string);
  const floors: number[] = [];
  for (let i = 1; i <= 3; i++) {
    const at = Math.ceil((Date.now() + 500) / 1000) * 1000;
    await until(at);
    const ins = await pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type, scheduled_at, status,
         started_at, runner_instance_id, created_at, updated_at)
       SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, j.payload, 'SCHEDULED', $2, 'RUNNING', now(), 'floor', now(), now()
       FROM unnest($1::uuid[]) AS u(id) JOIN cron_job_definitions j ON j.id = u.id ON CONFLICT DO NOTHING RETURNING id`,
      [ids, new Date(slot + i * 3_600_000)],
    );
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = now(), updated_at = now() WHERE id = ANY($1::uuid[])`, [
      ins.rows.map((r) => r.id),
    ]);
    floors.push((n / (Date.now() - at)) * 1000);
  }
  await pool.end();
  await db.drop();
  return { rate, floorRate: floors.sort((a, b) => a - b)[1], ended };
}

const server = await benchServer(log);
try {
  for (const n of SIZES) {
    const r = await scenario(server.url, n);
    report({
      scenario: `lifecycle ${n.toLocaleString('en')} co-due, no-op handler`,
      figure: 'runs/s (slot → all SUCCEEDED)',
      value: r.rate,
      baselineName: 'floor (INSERT + UPDATE)',
      baseline: r.floorRate,
      unit: 'runs/s',
      goal: '≥ 10,000 runs/s',
      met: r.rate >= 10_000,
    });
    if (r.ended !== n) console.log(`lifecycle: only ${r.ended} of ${n} runs ended within 60 s`);
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
