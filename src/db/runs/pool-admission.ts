import { inTransaction, type Query, type RunContext } from './context.js';
import type { ClaimedRun } from './fire.js';
import { limitColumns, limitsOf, rowToRun } from './record.js';
import { JOB, S, qualified } from './vocabulary.js';

/**
 * Concurrency pools' admission (docs/behaviour.md, "Concurrency pools"): a run of a pool becomes
 * RUNNING only while fewer of the pool's runs than its limit are RUNNING, whichever instance
 * claims it. The rule lives here, once, and every claim of a pooled run comes through it (the fire
 * path's pooled slots, run-now, retries, buffered slots, backfills, the sweeps); runs of no pool
 * never do, and pay nothing for it.
 *
 * One transaction per admission: the pools' rows are locked first (FOR NO KEY UPDATE, in name
 * order), so admissions of a pool take turns across connections and instances; then a new
 * statement — a fresh snapshot, which sees every run the previous holder started or ended —
 * counts the pool's RUNNING runs and picks its waiting runs, oldest due first, for the places
 * left; then they are claimed. The pool's lock is the first lock such a transaction takes, and no
 * other transaction waits for a pool's lock while holding a run's (an end of a run only sends a
 * NOTIFY), so admissions cannot deadlock with each other or with the fire path.
 */

/** Within a transaction: locks the pools of these names (those that exist), in name order; their limits. */
async function lockPools(q: Query, names: readonly string[]): Promise<Map<string, number>> {
  const res = await q(
    'SELECT name, run_limit FROM cron_concurrency_pools WHERE name = ANY($1::text[]) ORDER BY name FOR NO KEY UPDATE',
    [[...names]],
  );
  return new Map(res.rows.map((r) => [r.name as string, Number(r.run_limit)]));
}

/**
 * The waiting runs of the pools `$1` (limits `$2`) that may start now (`$3`), oldest due first:
 * as many per pool as its limit leaves beside its RUNNING runs. A run is waiting when a claim
 * would take it (`claim` in fire.ts: due, in a lane where runs run, a retry only of an ACTIVE
 * job). A pool whose row is gone (deleted while an old version's run waited) limits nothing. With
 * `$4`, only those runs are taken: the others keep their turn (a place an older run is owed is
 * left to the wake-up on its way, see `poolWakes` in end-rules.ts).
 */
const ADMISSIBLE = `WITH lim AS (SELECT * FROM unnest($1::text[], $2::int[]) AS l(pool, run_limit)),
    running AS (
      SELECT r.concurrency_pool AS pool, count(*)::int AS n FROM cron_job_runs r
      WHERE r.concurrency_pool = ANY($1::text[]) AND r.status = ${S.RUNNING} GROUP BY r.concurrency_pool
    ), waiting AS (
      SELECT r.id, r.concurrency_pool AS pool,
        row_number() OVER (PARTITION BY r.concurrency_pool ORDER BY coalesce(r.due_at, r.created_at), r.id) AS turn
      FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
      WHERE r.concurrency_pool = ANY($1::text[]) AND r.status = ${S.PENDING} AND r.lane >= 0
        AND (r.due_at IS NULL OR r.due_at <= $3) AND (r.attempt = 1 OR d.status = ${JOB.ACTIVE})
    )
  SELECT w.id FROM waiting w LEFT JOIN lim l ON l.pool = w.pool LEFT JOIN running x ON x.pool = w.pool
  WHERE (l.run_limit IS NULL OR w.turn <= l.run_limit - coalesce(x.n, 0)) AND ($4::uuid[] IS NULL OR w.id = ANY($4::uuid[]))
  ORDER BY w.id`;

/**
 * PENDING → RUNNING for this instance, of runs `ids` (sorted: one lock order across instances):
 * the claim's statement, for the plain claim (`pooled` false: runs of a pool are left to
 * admission) and for admission's (the runs it picked under the pools' locks).
 */
export function claimStatement(pooled: boolean, traced: boolean): string {
  return `UPDATE cron_job_runs r SET status = ${S.RUNNING}, started_at = $2, updated_at = $2, runner_instance_id = $3
         ${traced ? ', traceparent = coalesce(r.traceparent, t.tp)' : ''}
       FROM cron_job_definitions d${traced ? ', unnest($1::uuid[], $4::text[]) AS t(id, tp)' : ''}
       WHERE r.id = ANY($1::uuid[]) AND r.status = ${S.PENDING} AND d.id = r.job_definition_id${traced ? ' AND t.id = r.id' : ''}
         AND r.lane >= 0 AND (r.due_at IS NULL OR r.due_at <= $2) AND (r.attempt = 1 OR d.status = ${JOB.ACTIVE})
         ${pooled ? '' : 'AND r.concurrency_pool IS NULL'}
       RETURNING ${qualified('r')}, ${limitColumns('d')}`;
}

/**
 * Admits what the pools `names` have room for, oldest due first, claimed RUNNING for this instance
 * (`only`: of these runs alone); returns the runs won. With tracing, `newTrace` gives a run
 * without a trace context one, as `claim` does.
 */
export async function admit(ctx: RunContext, names: readonly string[], o: { only?: readonly string[]; newTrace?: () => string } = {}): Promise<ClaimedRun[]> {
  if (names.length === 0 || o.only?.length === 0) return [];
  const pools = [...new Set(names)].sort();
  const rows = await inTransaction(ctx.pool, async (q) => {
    const limits = await lockPools(q, pools);
    const now = ctx.now();
    const picked = await q(ADMISSIBLE, [pools, pools.map((p) => limits.get(p) ?? null), now, o.only ? [...o.only] : null]);
    const ids = picked.rows.map((r) => r.id as string);
    if (ids.length === 0) return [];
    const traces = o.newTrace ? ids.map(() => o.newTrace!()) : undefined;
    const res = await q(claimStatement(true, traces !== undefined), traces ? [ids, now, ctx.instanceId, traces] : [ids, now, ctx.instanceId]);
    return res.rows;
  });
  const won = rows.map((row) => ({ run: rowToRun(row), limits: limitsOf(row) }));
  ctx.claimed(won.map((c) => c.run), false);
  return won;
}
