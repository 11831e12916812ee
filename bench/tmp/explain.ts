import pg from 'pg';
import { createCronql } from '../../src/app.js';
import { freshDatabase, log } from '../lib/bench.js';
import { benchServer } from '../server.js';
const server = await benchServer(log);
const db = await freshDatabase(server.url, 'cronql_explain');
const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
await setup.start();
await setup.pool.query(`INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload)
  SELECT gen_random_uuid(), 'bench-' || i, 1, 'log', 'RECURRING', '*/20 * * * * *', 'ACTIVE', '{"message":"x"}'::jsonb FROM generate_series(1, 10000) i`);
await setup.stop();
const c = new pg.Client({ connectionString: db.url });
await c.connect();
await c.query('ANALYZE');
const ids = (await c.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id);
const cols = `id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type, scheduled_at, started_at, finished_at, status, failure_code, failure_message, failure_details, output, runner_instance_id, created_at, updated_at`;
for (let k = 0; k < 4; k++) {
  const slot = new Date(Date.UTC(2026, 5, 1, 12, k));
  const sql = `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
      trigger_type, scheduled_at, status, failure_code, failure_message, failure_details, started_at, runner_instance_id,
      finished_at, created_at, updated_at)
    SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, coalesce(s.payload, j.payload), 'SCHEDULED',
      s.slot, 'RUNNING', NULL, NULL, NULL, $3, $4, NULL, $3, $3
    FROM (SELECT job_id, slot, NULL::jsonb AS payload FROM unnest($1::uuid[], $2::timestamptz[]) AS u(job_id, slot)) s
    JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = 'ACTIVE'
    ORDER BY j.id, s.slot ON CONFLICT DO NOTHING RETURNING ${k % 2 ? 'id' : cols}`;
  const t0 = performance.now();
  const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${sql}`, [ids, ids.map(() => slot), new Date(), 'x']);
  console.log(k % 2 ? 'RETURNING id' : 'RETURNING all', (performance.now() - t0).toFixed(0), 'ms');
  console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
  await c.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED' WHERE status = 'RUNNING'`);
}
const idx = await c.query(`SELECT indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes WHERE relname = 'cron_job_runs'`);
console.log(idx.rows);
console.log((await c.query(`SHOW shared_buffers`)).rows, (await c.query(`SHOW synchronous_commit`)).rows, (await c.query(`SHOW fsync`)).rows, (await c.query(`SHOW wal_level`)).rows);
await c.end();
await db.drop();
await server.stop();
