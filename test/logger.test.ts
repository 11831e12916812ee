import { describe, expect, it } from 'vitest';
import { JobDefinition } from '../src/db/entities/job-definition.entity.js';
import { openOrm } from '../src/db/orm.js';
import { serializeError } from '../src/logger.js';
import { startCronql, testDatabase } from './support/cronql.js';

/** No log line carries the values of a statement: a failed INSERT is logged without its payload. */
describe('logging database errors', () => {
  it('keeps what failed and why, drops the statement text and the values', async () => {
    const db = await testDatabase();
    const cronql = await startCronql(db.url, { listen: false, role: 'api' });
    try {
      const errors: unknown[] = [];
      // Past every validation, straight into the ORM and the pool: the database refuses both.
      const orm = await openOrm({ databaseUrl: db.url, pool: cronql.pool });
      const em = orm.em.fork();
      em.create(JobDefinition, {
        jobKey: 'k', version: 1, target: 'log', scheduleType: 'RECURRING', cronExpression: '* * * * *',
        payload: { authorization: 'Bearer TOPSECRET', v: 'x\u0000' },
      } as never);
      await em.flush().catch((e) => errors.push(e));
      await cronql.pool
        .query(`INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload)
          VALUES (gen_random_uuid(), 'k2', 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $1)`, [JSON.stringify({ token: 'TOPSECRET', v: 'x\u0000' })])
        .catch((e) => errors.push(e));
      expect(errors).toHaveLength(2);
      for (const err of errors) {
        expect(JSON.stringify(err)).toMatch(/TOPSECRET/); // the raw error does carry it…
        const logged = JSON.stringify(serializeError(err));
        expect(logged).not.toMatch(/TOPSECRET|insert into/i); // …its log line does not
        expect(logged).toMatch(/unsupported Unicode escape sequence/);
      }
    } finally {
      await cronql.stop();
      await db.drop();
    }
  });
});
