import pg from 'pg';
import { createCronql } from '../../src/app.js';
import { freshDatabase, log } from '../lib/bench.js';
import { benchServer } from '../server.js';
const server = await benchServer(log);
const db = await freshDatabase(server.url, 'cronql_explain2');
const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
await setup.start();
await setup.pool.query(`INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload)
  SELECT gen_random_uuid(), 'bench-' || i, 1, 'log', 'RECURRING', '*/20 * * * * *', 'ACTIVE', '{"message":"x"}'::jsonb FROM generate_series(1, 10000) i`);
await setup.stop();
const c = new pg.Client({ connectionString: db.url });
await c.connect();
await c.query('ALTER TABLE cron_job_definitions SET (fillfactor = 50)'); await c.query('VACUUM FULL cron_job_definitions'); await c.query('ANALYZE');
const ids = (await c.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id);
for (let k = 0; k < 6; k++) {
  const variant = ['runs only', 'runs+jobs, triggers', 'runs+jobs, no triggers'][k % 3];
  if (k % 3 === 2) await c.query('ALTER TABLE cron_job_definitions DISABLE TRIGGER USER'); else await c.query('ALTER TABLE cron_job_definitions ENABLE TRIGGER USER');
  const slot = new Date(Date.UTC(2026, 5, 1, 12, k));
  await c.query(`INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id, created_at, updated_at)
    SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, 'SCHEDULED', $2, 'RUNNING', now(), 'x', now(), now() FROM unnest($1::uuid[]) u(id) JOIN cron_job_definitions j ON j.id = u.id`, [ids, slot]);
  const t0 = performance.now();
  const r = await c.query(`EXPLAIN (ANALYZE, TIMING OFF) WITH done AS (
     UPDATE cron_job_runs r SET status = 'SUCCEEDED', finished_at = now(), updated_at = now() WHERE r.status = 'RUNNING' RETURNING r.*
   ) ${k % 3 === 0 ? 'SELECT count(*) FROM done' : 'UPDATE cron_job_definitions d SET consecutive_failures = 0, last_success_at = now() FROM done c WHERE d.id = c.job_definition_id'}`);
  console.log(variant, (performance.now() - t0).toFixed(0), 'ms');
  
}
await c.end();
await db.drop();
await server.stop();
