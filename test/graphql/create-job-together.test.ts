import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreateJobDocument, type CreateJobInput } from '../../src/client/generated/graphql.js';
import { CronqlError } from '../../src/errors.js';
import type { CreateJobInput as ServiceInput } from '../../src/services/job.service.js';
import { Channel } from '../../src/db/notifier.js';
import { codes, gql, startApi, type Api } from './support.js';

/**
 * createJob's group commit (db/group-commit.ts, `JobStore.createTogether`): concurrent createJob
 * calls share one statement, yet each caller gets its own answer — its job, or its own error with
 * the code and message a lone call gets — and each job its own row, audit entry and NOTIFY, as a
 * lone createJob writes them.
 */
let api: Api;
let listener: pg.Client;
const notified = new Set<string>();

const job = (key: string, extra: Partial<CreateJobInput> = {}): CreateJobInput => ({
  key,
  target: 'log',
  scheduleType: 'RECURRING',
  cronExpression: '0 3 * * *',
  ...extra,
});

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
}

beforeAll(async () => {
  api = await startApi({ instanceId: 'create-together' });
});
afterAll(async () => {
  await listener?.end().catch(() => {});
  await api?.close();
});

/** Listens as another instance does: the NOTIFY each new job's statement sends. */
async function listen(): Promise<void> {
  listener = new pg.Client({ connectionString: api.cronql.pool.options.connectionString });
  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel === Channel.JOB_CHANGED && n.payload) notified.add(n.payload);
  });
  await listener.query(`LISTEN ${Channel.JOB_CHANGED}`);
}

interface Row {
  id: string;
  job_key: string;
  xmin: string;
  created_at: Date;
  created_by: string | null;
  [column: string]: unknown;
}

const rowsOf = async (keys: string[]): Promise<Row[]> =>
  (await api.cronql.pool.query<Row>(`SELECT xmin::text, * FROM cron_job_definitions WHERE job_key = ANY($1)`, [keys])).rows;

const auditOf = async (keys: string[]) =>
  (await api.cronql.pool.query(`SELECT at, actor, action, job_key, subject, details FROM cron_audit_log WHERE job_key = ANY($1) ORDER BY id`, [keys])).rows;

/** A row as a comparison sees it: what differs between any two jobs (ids, keys, instants, the transaction) left out. */
const definition = ({ id: _i, job_key: _k, xmin: _x, created_at: _c, updated_at: _u, active_since: _a, created_by: _cb, updated_by: _ub, ...rest }: Row) => rest;

const until = async (what: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('createJob by concurrent callers: one statement, each caller its own answer', () => {
  test('generated bursts: new keys, a key twice, keys taken before, invalid inputs — answers, rows, audit entries, NOTIFYs', async () => {
    await listen();
    // A lone createJob first, as today: the reference for every field a batched one must have.
    const lone = await api.cronql.jobs.create({ ...job('lone.ref', { payload: { n: 1 }, timezone: 'Europe/Paris', retry: { maxAttempts: 3 } }) } as ServiceInput, 'alice');
    const [loneRow] = await rowsOf(['lone.ref']);
    expect(lone).toMatchObject({ jobKey: 'lone.ref', version: 1, status: 'ACTIVE', createdBy: 'alice' });

    for (const seed of [1, 2, 3]) {
      const rnd = random(seed);
      const taken = `taken-${seed}`;
      await api.cronql.jobs.create(job(taken) as ServiceInput, 'admin');
      // Each call: its input, its actor, and what it must get.
      type Expect = 'created' | 'duplicate' | 'KEY_EXISTS' | 'INVALID_CRON_EXPRESSION' | 'UNKNOWN_TARGET';
      const calls: { input: CreateJobInput; actor: string | null; expect: Expect }[] = [];
      const n = 30 + Math.floor(rnd() * 40);
      for (let i = 0; i < n; i++) {
        const actor = [null, 'alice', 'bob'][Math.floor(rnd() * 3)];
        const r = rnd();
        if (r < 0.6) calls.push({ input: job(`b${seed}.k${i}`, { payload: { n: 1 }, timezone: 'Europe/Paris', retry: { maxAttempts: 3 } }), actor, expect: 'created' });
        else if (r < 0.75) calls.push({ input: job(`b${seed}.twice`), actor, expect: 'duplicate' });
        else if (r < 0.85) calls.push({ input: job(taken), actor, expect: 'KEY_EXISTS' });
        else if (r < 0.93) calls.push({ input: job(`b${seed}.bad${i}`, { cronExpression: '61 * * * *' }), actor, expect: 'INVALID_CRON_EXPRESSION' });
        else calls.push({ input: job(`b${seed}.tgt${i}`, { target: 'nope' }), actor, expect: 'UNKNOWN_TARGET' });
      }
      // All in one turn: they reach the store together, as requests arriving together do.
      const answers = await Promise.allSettled(calls.map((c) => api.cronql.jobs.create({ ...c.input } as ServiceInput, c.actor)));

      const twice = calls.flatMap((c, i) => (c.expect === 'duplicate' ? [i] : []));
      for (const [i, c] of calls.entries()) {
        const a = answers[i];
        const error = a.status === 'rejected' ? (a.reason as CronqlError) : null;
        if (c.expect === 'created') {
          expect(a.status, `${c.input.key}: ${error?.message}`).toBe('fulfilled');
          expect(a.status === 'fulfilled' && a.value).toMatchObject({ jobKey: c.input.key, version: 1, status: 'ACTIVE', createdBy: c.actor });
        } else if (c.expect === 'duplicate') {
          // Exactly one of the calls with that key wins (below); each other one is refused as a lone call would be.
          if (a.status === 'rejected') {
            expect(error).toBeInstanceOf(CronqlError);
            expect({ code: error!.code, message: error!.message }).toEqual({ code: 'KEY_EXISTS', message: `a job with key "${c.input.key}" exists already; use createJobVersion` });
          } else expect(a.value).toMatchObject({ jobKey: c.input.key, createdBy: c.actor });
        } else {
          expect(a.status, c.input.key).toBe('rejected');
          expect(error!.code, c.input.key).toBe(c.expect);
          if (c.expect === 'KEY_EXISTS') expect(error!.message).toBe(`a job with key "${taken}" exists already; use createJobVersion`);
        }
      }
      if (twice.length) expect(twice.filter((i) => answers[i].status === 'fulfilled')).toHaveLength(1);

      // The rows: exactly the jobs answered, each as a lone createJob writes it, all in ONE transaction.
      const created = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
      const burstKeys = [...new Set(calls.map((c) => c.input.key))].filter((k) => k !== taken);
      const rows = await rowsOf(burstKeys);
      expect(rows.map((r) => r.id).sort()).toEqual(created.map((j) => j.id).sort());
      expect(new Set(rows.map((r) => r.xmin)).size).toBe(1);
      expect(rows.filter((r) => r.xmin === loneRow.xmin)).toEqual([]);
      const [takenRow] = await rowsOf([taken]);
      expect(takenRow.created_by).toBe('admin');
      for (const row of rows) {
        const record = created.find((j) => j.id === row.id)!;
        expect(row.created_at).toEqual(record.createdAt);
        expect(row.created_by).toBe(record.createdBy);
        if (row.job_key.includes('.k')) expect(definition(row)).toEqual(definition(loneRow));
      }
      // One audit entry per job, with its own caller as actor, at its own createdAt.
      const entries = await auditOf(burstKeys);
      expect(entries).toHaveLength(created.length);
      for (const j of created) {
        const e = entries.find((x) => x.subject === j.id);
        expect(e).toMatchObject({ action: 'createJob', actor: j.createdBy ?? 'library', job_key: j.jobKey, details: { version: 1, target: 'log', scheduleType: 'RECURRING' } });
        expect(e!.at).toEqual(j.createdAt);
      }
      // Every instance hears of each new job (the NOTIFY that arms it), and this one armed each.
      await until(() => created.every((j) => notified.has(j.id)));
      for (const j of created) expect(api.cronql.runtime!.nextRunAt(j.id)).toBeInstanceOf(Date);
    }
  });

  test('a refusal of the database for one caller (unknown calendar, pool, upstream) fails only that caller, through GraphQL', async () => {
    const rnd = random(7);
    type Expect = 'created' | 'UNKNOWN_CALENDAR' | 'UNKNOWN_POOL' | 'UNKNOWN_JOB';
    const calls: { input: CreateJobInput; expect: Expect }[] = [];
    for (let i = 0; i < 24; i++) {
      const r = rnd();
      if (r < 0.6) calls.push({ input: job(`ref.ok${i}`), expect: 'created' });
      else if (r < 0.75) calls.push({ input: job(`ref.cal${i}`, { calendars: ['no-such-calendar'] }), expect: 'UNKNOWN_CALENDAR' });
      else if (r < 0.9) calls.push({ input: job(`ref.pool${i}`, { concurrencyPool: 'no-such-pool' }), expect: 'UNKNOWN_POOL' });
      else calls.push({ input: job(`ref.up${i}`, { scheduleType: 'AFTER', cronExpression: null, after: [{ jobKey: 'no-such-upstream' }] }), expect: 'UNKNOWN_JOB' });
    }
    expect(new Set(calls.map((c) => c.expect)).size).toBe(4);
    // Through the library (all in one turn: one batch, then halves) and through GraphQL (as requests arrive).
    const direct = await Promise.allSettled(calls.map((c) => api.cronql.jobs.create({ ...c.input, key: `lib.${c.input.key}` } as ServiceInput, 'admin')));
    const http = await Promise.all(calls.map((c) => gql(api.url, CreateJobDocument, { input: c.input }, api.adminToken)));
    for (const [i, c] of calls.entries()) {
      const d = direct[i];
      const h = http[i];
      if (c.expect === 'created') {
        expect(d.status, c.input.key).toBe('fulfilled');
        expect(h.errors, c.input.key).toBeUndefined();
        expect(h.data!.createJob).toMatchObject({ key: c.input.key, version: 1, status: 'ACTIVE', createdBy: 'admin' });
      } else {
        expect(d.status === 'rejected' && (d.reason as CronqlError).code, c.input.key).toBe(c.expect);
        expect(codes(h), c.input.key).toEqual([c.expect]);
      }
    }
    const wanted = calls.filter((c) => c.expect === 'created').map((c) => c.input.key);
    expect((await rowsOf([...wanted, ...calls.map((c) => c.input.key)])).map((r) => r.job_key).sort()).toEqual([...wanted].sort());
    expect((await rowsOf(calls.map((c) => `lib.${c.input.key}`))).map((r) => r.job_key).sort()).toEqual(wanted.map((k) => `lib.${k}`).sort());
    expect(await auditOf(wanted)).toHaveLength(wanted.length);
  });

  test('a lone createJob is its own statement and transaction, answered as before', async () => {
    const a = await api.cronql.jobs.create(job('lone.a') as ServiceInput, 'alice');
    const b = await api.cronql.jobs.create(job('lone.b') as ServiceInput, 'bob');
    const rows = await rowsOf(['lone.a', 'lone.b']);
    expect(new Set(rows.map((r) => r.xmin)).size).toBe(2);
    expect([a.createdBy, b.createdBy]).toEqual(['alice', 'bob']);
    await expect(api.cronql.jobs.create(job('lone.a') as ServiceInput, 'bob')).rejects.toMatchObject({
      code: 'KEY_EXISTS',
      message: 'a job with key "lone.a" exists already; use createJobVersion',
    });
    await expect(api.cronql.jobs.create(job('lone.c', { calendars: ['missing'] }) as ServiceInput)).rejects.toMatchObject({ code: 'UNKNOWN_CALENDAR' });
    expect(await rowsOf(['lone.c'])).toEqual([]);
  });
});
