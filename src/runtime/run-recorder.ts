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

/**
 * The one place that writes run rows. Every invariant that must hold across instances is a
 * database constraint here: the unique scheduled-slot key makes a slot fire once whoever fires
 * it (`ON CONFLICT DO NOTHING`), the partial unique index on active runs turns an overlapping
 * slot into a SKIPPED row, and state changes are conditional updates on the expected status.
 *
 * Co-due slots are batched: `fire()` calls made in the same turn of the event loop are
 * recorded by one INSERT and one UPDATE for all of them.
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
    const jobIds = slots.map((s) => s.jobId);
    const instants = slots.map((s) => s.slot);
    const key = (jobId: string, slot: Date) => `${jobId}@${slot.getTime()}`;

    const inserted = await this.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
         trigger_type, scheduled_at, status, created_at, updated_at)
       SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, j.payload, 'SCHEDULED', s.slot,
         'PENDING', $3, $3
       FROM unnest($1::uuid[], $2::timestamptz[]) AS s(job_id, slot)
       JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = 'ACTIVE'
       ON CONFLICT DO NOTHING
       RETURNING ${RUN_COLUMNS}`,
      [jobIds, instants, now],
    );
    const pending = new Map(inserted.rows.map((r) => {
      const run = rowToRun(r);
      return [key(run.jobId, run.scheduledAt), run] as const;
    }));

    // Slots that inserted nothing: either another actor recorded the slot, or a run of the job
    // is still active (the one-active-run index). Recording them as SKIPPED tells which: the
    // slot key still rejects a slot someone else owns.
    const rest = slots.filter((s) => !pending.has(key(s.jobId, s.slot)));
    const skipped = new Map<string, RunRecord>();
    if (rest.length > 0) {
      const res = await this.pool.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
           trigger_type, scheduled_at, status, failure_code, failure_message, finished_at, created_at, updated_at)
         SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, j.payload, 'SCHEDULED', s.slot,
           'SKIPPED', $4, $5, $3, $3, $3
         FROM unnest($1::uuid[], $2::timestamptz[]) AS s(job_id, slot)
         JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = 'ACTIVE'
         ON CONFLICT DO NOTHING
         RETURNING ${RUN_COLUMNS}`,
        [rest.map((s) => s.jobId), rest.map((s) => s.slot), now, FailureCode.OVERLAP, OVERLAP_MESSAGE],
      );
      for (const r of res.rows) {
        const run = rowToRun(r);
        skipped.set(key(run.jobId, run.scheduledAt), run);
      }
    }

    const running = new Map((await this.claim([...pending.values()].map((r) => r.id))).map((r) => [r.id, r]));
    return slots.map((s): FireOutcome => {
      const k = key(s.jobId, s.slot);
      const p = pending.get(k);
      if (p) {
        const r = running.get(p.id);
        // Claimed by nobody else can happen only if the run was canceled in between.
        return r ? { kind: 'claimed', pending: p, running: r } : { kind: 'taken' };
      }
      const sk = skipped.get(k);
      return sk ? { kind: 'skipped', run: sk } : { kind: 'taken' };
    });
  }

  /** PENDING → RUNNING for this instance; returns the runs it won (conditional update). */
  async claim(runIds: string[]): Promise<RunRecord[]> {
    if (runIds.length === 0) return [];
    const now = this.now();
    const res = await this.pool.query(
      `UPDATE cron_job_runs SET status = 'RUNNING', started_at = $2, updated_at = $2, runner_instance_id = $3
       WHERE id = ANY($1::uuid[]) AND status = 'PENDING'
       RETURNING ${RUN_COLUMNS}`,
      [runIds, now, this.instanceId],
    );
    return res.rows.map(rowToRun);
  }

  /**
   * RUNNING → terminal. Returns null when the run was no longer RUNNING (canceled or failed by
   * someone else meanwhile): terminal states never change. A one-time job's scheduled run
   * reaching a terminal state retires the job in the same statement. Runs ending in the same
   * turn of the event loop are recorded together.
   */
  finish(runId: string, finish: Finish): Promise<RunRecord | null> {
    return this.finishes.add({ runId, finish });
  }

  private async finishBatch(all: { runId: string; finish: Finish }[]): Promise<(RunRecord | null)[]> {
    const now = this.now();
    // One outcome per run: a second one in the same batch (shutdown racing the handler) loses.
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
         RETURNING ${RUN_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}
       ), retired AS (
         UPDATE cron_job_definitions d SET status = 'RETIRED', updated_at = $7
         FROM done
         WHERE d.id = done.job_definition_id AND done.trigger_type = 'SCHEDULED'
           AND d.schedule_type = 'ONE_TIME' AND d.status <> 'RETIRED'
         RETURNING d.id
       )
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
   * Creates a MANUAL or AD_HOC run of a job that is not RETIRED. With a run of the job still
   * active, the run is recorded as SKIPPED (OVERLAP): run-now obeys the overlap rule.
   */
  async insertManual(jobId: string, payload: unknown | undefined): Promise<RunRecord | null> {
    const now = this.now();
    const trigger = payload === undefined ? TriggerType.MANUAL : TriggerType.AD_HOC;
    const params = [jobId, trigger, now, payload === undefined ? null : jsonParam(payload), payload !== undefined];
    const insert = (status: string, extra: string) =>
      this.pool.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
           trigger_type, scheduled_at, status, created_at, updated_at${extra ? ', failure_code, failure_message, finished_at' : ''})
         SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target,
           CASE WHEN $5 THEN $4::jsonb ELSE j.payload END, $2, $3, '${status}', $3, $3${extra}
         FROM cron_job_definitions j WHERE j.id = $1 AND j.status <> 'RETIRED'
         ON CONFLICT DO NOTHING
         RETURNING ${RUN_COLUMNS}`,
        params,
      );
    const pending = await insert('PENDING', '');
    if (pending.rows[0]) return rowToRun(pending.rows[0]);
    const skipped = await insert('SKIPPED', `, '${FailureCode.OVERLAP}', '${OVERLAP_MESSAGE}', $3`);
    return skipped.rows[0] ? rowToRun(skipped.rows[0]) : null;
  }

  /** PENDING|RUNNING → CANCELED; null when the run is terminal already. */
  async cancel(runId: string): Promise<{ run: RunRecord; previousStatus: RunStatus } | null> {
    const now = this.now();
    const res = await this.pool.query(
      `WITH before AS (SELECT id, status FROM cron_job_runs WHERE id = $1 FOR UPDATE)
       UPDATE cron_job_runs r SET status = 'CANCELED', finished_at = $2, updated_at = $2,
         failure_code = $3, failure_message = 'canceled by an admin'
       FROM before
       WHERE r.id = before.id AND r.status IN ('PENDING', 'RUNNING')
       RETURNING ${RUN_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}, before.status AS previous_status`,
      [runId, now, FailureCode.CANCELED],
    );
    const row = res.rows[0];
    return row ? { run: rowToRun(row), previousStatus: row.previous_status as RunStatus } : null;
  }

  async get(runId: string): Promise<RunRecord | null> {
    const res = await this.pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = $1`, [runId]);
    return res.rows[0] ? rowToRun(res.rows[0]) : null;
  }
}
