import type { Pool } from '../db/pool.js';
import { jsonParam } from '../db/pool.js';
import { FailureCode, RunStatus, TriggerType } from '../domain/enums.js';
import { RUN_COLUMNS, rowToRun, type RunRecord } from '../domain/run.js';
import { Batcher } from './batcher.js';

/** A slot that came due for a job. */
export interface DueSlot {
  jobId: string;
  slot: Date;
}

/** A run this instance claimed (PENDING → RUNNING), with its job's timeout. */
export interface ClaimedRun {
  run: RunRecord;
  timeoutSeconds: number | null;
}

/** What became of a due slot: it is ours to run, it was skipped, or another actor owns it. */
export type FireOutcome =
  | { kind: 'claimed'; pending: RunRecord; running: RunRecord }
  | { kind: 'skipped'; run: RunRecord }
  | { kind: 'taken' };

export interface Finish {
  status: RunStatus.SUCCEEDED | RunStatus.FAILED | RunStatus.CANCELED;
  output?: unknown;
  failureCode?: string | null;
  failureMessage?: string | null;
  failureDetails?: unknown;
}

const OVERLAP_MESSAGE = 'skipped: a run of this job was still active when the slot came due';

/** RUN_COLUMNS qualified with a table alias, for statements that join. */
const qualified = (alias: string) => RUN_COLUMNS.split(',').map((c) => `${alias}.${c.trim()}`).join(', ');

/**
 * The statement that creates runs: one row per (job, slot, payload) of `source`, a query that
 * yields `job_id`, `slot` and `payload` (null: the job's own payload) from the job rows `j`
 * it joins. `$status`, `$code`, `$message` and `$at` name the parameters holding the new
 * run's status, failure code and message, and the instant of the change.
 */
function insertRuns(source: string, p: { trigger: string; status: string; code: string; message: string; at: string }): string {
  return `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
      trigger_type, scheduled_at, status, failure_code, failure_message, finished_at, created_at, updated_at)
    SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, coalesce(s.payload, j.payload), ${p.trigger},
      s.slot, ${p.status}, ${p.code}, ${p.message},
      CASE WHEN ${p.status} = 'SKIPPED' THEN ${p.at}::timestamptz END, ${p.at}, ${p.at}
    FROM ${source}
    ON CONFLICT DO NOTHING
    RETURNING ${RUN_COLUMNS}`;
}

/**
 * One rule, in one place: a one-time job retires once its scheduled run is terminal, however it
 * got there (finished, canceled, skipped). A CTE over the rows `changed` returns.
 */
const retireOneTimeJobs = (changed: string, at: string) => `retired AS (
    UPDATE cron_job_definitions d SET status = 'RETIRED', updated_at = ${at}
    FROM ${changed} c
    WHERE d.id = c.job_definition_id AND c.trigger_type = 'SCHEDULED'
      AND c.status IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED')
      AND d.schedule_type = 'ONE_TIME' AND d.status <> 'RETIRED'
    RETURNING d.id)`;

/** Due slots of ACTIVE jobs: `$1` job ids, `$2` slots. */
const DUE_SLOTS = `(SELECT job_id, slot, NULL::jsonb AS payload FROM unnest($1::uuid[], $2::timestamptz[]) AS u(job_id, slot)) s
    JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = 'ACTIVE'`;

/**
 * The one place that writes run rows. Every invariant that must hold across instances is a
 * database constraint here: the unique scheduled-slot key makes a slot fire once whoever fires
 * it (`ON CONFLICT DO NOTHING`), the partial unique index on active runs turns an overlapping
 * slot into a SKIPPED row, and state changes are conditional updates on the expected status.
 *
 * Co-due slots are batched: `fire()` calls made in the same turn of the event loop are recorded
 * by one INSERT and one UPDATE for all of them; runs ending together by one UPDATE.
 */
export class RunRecorder {
  private readonly fires = new Batcher<DueSlot, FireOutcome>((slots) => this.fireBatch(slots));
  private readonly finishes = new Batcher<{ runId: string; finish: Finish }, RunRecord | null>((items) =>
    this.finishBatch(items),
  );

  constructor(
    private readonly pool: Pool,
    private readonly instanceId: string,
    private readonly now: () => Date,
  ) {}

  /** Records a due slot of an ACTIVE job and claims it for this instance if it is ours to run. */
  fire(due: DueSlot): Promise<FireOutcome> {
    return this.fires.add(due);
  }

  private async fireBatch(slots: DueSlot[]): Promise<FireOutcome[]> {
    const now = this.now();
    const key = (jobId: string, slot: Date) => `${jobId}@${slot.getTime()}`;
    const byKey = (rows: Record<string, unknown>[]) =>
      new Map(rows.map((row) => {
        const run = rowToRun(row);
        return [key(run.jobId, run.scheduledAt), run] as const;
      }));

    const inserted = await this.pool.query(
      insertRuns(DUE_SLOTS, { trigger: `'SCHEDULED'`, status: `'PENDING'`, code: 'NULL', message: 'NULL', at: '$3' }),
      [slots.map((s) => s.jobId), slots.map((s) => s.slot), now],
    );
    const pending = byKey(inserted.rows);

    // Slots that inserted nothing: either another actor recorded the slot, or a run of the job
    // is still active (the one-active-run index). Recording them as SKIPPED tells which: the
    // slot key still rejects a slot someone else owns.
    const rest = slots.filter((s) => !pending.has(key(s.jobId, s.slot)));
    let skipped = new Map<string, RunRecord>();
    if (rest.length > 0) {
      const res = await this.pool.query(
        `WITH ins AS (${insertRuns(DUE_SLOTS, { trigger: `'SCHEDULED'`, status: `'SKIPPED'`, code: '$4', message: '$5', at: '$3' })}),
         ${retireOneTimeJobs('ins', '$3')}
         SELECT * FROM ins`,
        [rest.map((s) => s.jobId), rest.map((s) => s.slot), now, FailureCode.OVERLAP, OVERLAP_MESSAGE],
      );
      skipped = byKey(res.rows);
    }

    const claimed = await this.claim([...pending.values()].map((r) => r.id));
    const running = new Map(claimed.map((c) => [c.run.id, c.run]));
    return slots.map((s): FireOutcome => {
      const k = key(s.jobId, s.slot);
      const p = pending.get(k);
      if (p) {
        const r = running.get(p.id);
        // Not claimed: the run was canceled in between.
        return r ? { kind: 'claimed', pending: p, running: r } : { kind: 'taken' };
      }
      const sk = skipped.get(k);
      return sk ? { kind: 'skipped', run: sk } : { kind: 'taken' };
    });
  }

  /** PENDING → RUNNING for this instance; returns the runs it won (conditional update). */
  async claim(runIds: string[]): Promise<ClaimedRun[]> {
    if (runIds.length === 0) return [];
    const now = this.now();
    const res = await this.pool.query(
      `UPDATE cron_job_runs r SET status = 'RUNNING', started_at = $2, updated_at = $2, runner_instance_id = $3
       FROM cron_job_definitions d
       WHERE r.id = ANY($1::uuid[]) AND r.status = 'PENDING' AND d.id = r.job_definition_id
       RETURNING ${qualified('r')}, d.timeout_seconds`,
      [runIds, now, this.instanceId],
    );
    return res.rows.map((row) => ({ run: rowToRun(row), timeoutSeconds: row.timeout_seconds ?? null }));
  }

  /**
   * RUNNING → terminal. Returns null when the run was no longer RUNNING (canceled or failed by
   * someone else meanwhile): terminal states never change. Runs ending in the same turn of the
   * event loop are recorded together.
   */
  finish(runId: string, finish: Finish): Promise<RunRecord | null> {
    return this.finishes.add({ runId, finish });
  }

  /** `finish` for one run on its own, outside any batch (after its batch failed). */
  async finishAlone(runId: string, finish: Finish): Promise<RunRecord | null> {
    return (await this.finishBatch([{ runId, finish }]))[0];
  }

  private async finishBatch(all: { runId: string; finish: Finish }[]): Promise<(RunRecord | null)[]> {
    const now = this.now();
    // One outcome per run: a second one in the same batch loses.
    const seen = new Set<string>();
    const items = all.filter((i) => !seen.has(i.runId) && seen.add(i.runId));
    const res = await this.pool.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::jsonb[])
           AS t(id, status, output, failure_code, failure_message, failure_details)
       ), done AS (
         UPDATE cron_job_runs r SET status = i.status, finished_at = $7, updated_at = $7, output = i.output,
           failure_code = i.failure_code, failure_message = i.failure_message, failure_details = i.failure_details
         FROM input i
         WHERE r.id = i.id AND r.status = 'RUNNING'
         RETURNING ${qualified('r')}
       ), ${retireOneTimeJobs('done', '$7')}
       SELECT * FROM done`,
      [
        items.map((i) => i.runId),
        items.map((i) => i.finish.status),
        items.map((i) => jsonParam(i.finish.output)),
        items.map((i) => i.finish.failureCode ?? null),
        items.map((i) => i.finish.failureMessage ?? null),
        items.map((i) => jsonParam(i.finish.failureDetails)),
        now,
      ],
    );
    const byId = new Map(res.rows.map((row) => [row.id as string, rowToRun(row)]));
    return all.map((i) => {
      const run = byId.get(i.runId) ?? null;
      byId.delete(i.runId);
      return run;
    });
  }

  /**
   * Creates a MANUAL run of a job that is not RETIRED, or an AD_HOC one when a payload is given.
   * With a run of the job still active, the run is recorded as SKIPPED (OVERLAP): run-now obeys
   * the overlap rule. Null when the job is RETIRED (or unknown).
   */
  async insertManual(jobId: string, payload: unknown | undefined): Promise<RunRecord | null> {
    const source = `(SELECT $1::uuid AS job_id, $3::timestamptz AS slot, $4::jsonb AS payload) s
      JOIN cron_job_definitions j ON j.id = s.job_id AND j.status <> 'RETIRED'`;
    const trigger = payload === undefined ? TriggerType.MANUAL : TriggerType.AD_HOC;
    const insert = (status: RunStatus, code: string | null, message: string | null) =>
      this.pool.query(insertRuns(source, { trigger: '$2::text', status: '$5::text', code: '$6::text', message: '$7::text', at: '$3' }), [
        jobId,
        trigger,
        this.now(),
        jsonParam(payload),
        status,
        code,
        message,
      ]);
    const pending = await insert(RunStatus.PENDING, null, null);
    if (pending.rows[0]) return rowToRun(pending.rows[0]);
    const skipped = await insert(RunStatus.SKIPPED, FailureCode.OVERLAP, OVERLAP_MESSAGE);
    return skipped.rows[0] ? rowToRun(skipped.rows[0]) : null;
  }

  /** PENDING|RUNNING → CANCELED; null when the run is terminal already (or unknown). */
  async cancel(runId: string): Promise<{ run: RunRecord; previousStatus: RunStatus } | null> {
    const res = await this.pool.query(
      `WITH before AS (
         SELECT id, status FROM cron_job_runs WHERE id = $1 AND status IN ('PENDING', 'RUNNING') FOR UPDATE
       ), done AS (
         UPDATE cron_job_runs r SET status = 'CANCELED', finished_at = $2, updated_at = $2,
           failure_code = $3, failure_message = 'canceled by an admin'
         FROM before
         WHERE r.id = before.id AND r.status IN ('PENDING', 'RUNNING')
         RETURNING ${qualified('r')}, before.status AS previous_status
       ), ${retireOneTimeJobs('done', '$2')}
       SELECT * FROM done`,
      [runId, this.now(), FailureCode.CANCELED],
    );
    const row = res.rows[0];
    return row ? { run: rowToRun(row), previousStatus: row.previous_status as RunStatus } : null;
  }

  async get(runId: string): Promise<RunRecord | null> {
    const res = await this.pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = $1`, [runId]);
    return res.rows[0] ? rowToRun(res.rows[0]) : null;
  }

  /** The current status of runs (to reconcile runs in flight after lost notifications). */
  async statuses(runIds: string[]): Promise<Map<string, RunStatus>> {
    if (runIds.length === 0) return new Map();
    const res = await this.pool.query('SELECT id, status FROM cron_job_runs WHERE id = ANY($1::uuid[])', [runIds]);
    return new Map(res.rows.map((r) => [r.id as string, r.status as RunStatus]));
  }
}
