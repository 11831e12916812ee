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
/** Slots 5 s apart: 10,000 no-op runs end well within one. */
const EVERY_S = 5;
const ROUNDS = 3;

async function scenario(serverUrl: string, n: number): Promise<{ rate: number; rates: number[]; floorRate: number; ended: number }> {
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
  const statements: string[] = [];
  let base = 0;
  await cronql.start();
  if (process.env.BENCH_DEBUG) {
    // Each statement of 50 ms or more: when it started (from the slot), how long, what.
    const query = cronql.pool.query.bind(cronql.pool) as (...a: unknown[]) => Promise<unknown>;
    (cronql.pool as unknown as { query: unknown }).query = async (...a: unknown[]) => {
      const t = Date.now();
      try {
        return await query(...a);
      } finally {
        const took = Date.now() - t;
        if (took >= 50) statements.push(`+${t - base} ms for ${took} ms: ${String(typeof a[0] === 'string' ? a[0] : '').replace(/\s+/g, ' ').slice(0, 60)}`);
      }
    };
  }
  // Three consecutive slots, each measured on its own; the median is the figure.
  const first = Math.ceil((Date.now() + 1_000) / (EVERY_S * 1000)) * EVERY_S * 1000;
  const rounds = new Map<number, { ended: number; lastEnd: number; lastRunning: number; endsAt: number[] }>();
  for (let k = 0; k < ROUNDS; k++) rounds.set(first + k * EVERY_S * 1000, { ended: 0, lastEnd: 0, lastRunning: 0, endsAt: [] });
  base = first;
  statements.length = 0;
  const all = new Promise<void>((resolve) => {
    let complete = 0;
    cronql.events.on((c) => {
      const r = rounds.get(c.run.scheduledAt.getTime());
      if (!r) return;
      if (c.run.status === 'RUNNING') r.lastRunning = Date.now();
      if (c.run.status !== 'SUCCEEDED') return;
      r.lastEnd = Date.now();
      if (process.env.BENCH_DEBUG && (r.endsAt.length === 0 || r.endsAt[r.endsAt.length - 1] !== r.lastEnd)) r.endsAt.push(r.lastEnd);
      if (++r.ended === n && ++complete === ROUNDS) resolve();
    });
  });
  await Promise.race([all, until(first + (ROUNDS - 1) * EVERY_S * 1000 + 60_000)]);
  await cronql.stop();
  if (process.env.BENCH_DEBUG) console.log(statements.join('\n'));
  const rates: number[] = [];
  let ended = n;
  for (const [slot, r] of rounds) {
    if (process.env.BENCH_DEBUG) console.log(`slot +${slot - first} ms: all RUNNING at +${r.lastRunning - slot} ms; last end published at +${r.lastEnd - slot} ms`);
    rates.push((r.ended / (r.lastEnd - slot)) * 1000);
    ended = Math.min(ended, r.ended);
  }
  const rate = [...rates].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];

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
      [ids, new Date(first + i * 3_600_000)],
    );
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = now(), updated_at = now() WHERE id = ANY($1::uuid[])`, [
      ins.rows.map((r) => r.id),
    ]);
    floors.push((n / (Date.now() - at)) * 1000);
  }
  await pool.end();
  await db.drop();
  return { rate, rates, floorRate: floors.sort((a, b) => a - b)[1], ended };
}

const server = await benchServer(log);
try {
  for (const n of SIZES) {
    const r = await scenario(server.url, n);
    report({
      scenario: `lifecycle ${n.toLocaleString('en')} co-due, no-op handler`,
      figure: `runs/s (slot → all SUCCEEDED; median of ${r.rates.map((x) => Math.round(x).toLocaleString('en')).join(', ')})`,
      value: r.rate,
      baselineName: 'floor (INSERT + UPDATE)',
      baseline: r.floorRate,
      unit: 'runs/s',
      goal: '≥ 10,000 runs/s',
      met: r.rate >= 10_000,
    });
    if (r.ended !== n) console.log(`lifecycle: in one slot only ${r.ended} of ${n} runs ended within 60 s`);
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
