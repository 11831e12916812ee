import type { CronqlProcess } from '../support/processes.js';

/** GraphQL steps the process tests share (through a real process's HTTP API). */
export interface RunRow {
  id: string;
  status: string;
  scheduledAt: string;
  failureCode: string | null;
  failureDetails: Record<string, unknown> | null;
  runnerInstanceId: string | null;
  jobKey: string;
}

export async function createJob(p: CronqlProcess, input: Record<string, unknown>): Promise<string> {
  const res = await p.graphql<{ createJob: { id: string } }>('mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', {
    input: { target: 'log', scheduleType: 'RECURRING', ...input },
  });
  if (!res.data) throw new Error(`createJob failed: ${JSON.stringify(res.errors)}`);
  return res.data.createJob.id;
}

/** Every run (up to 500), oldest slot first; optionally of one job. */
export async function runs(p: CronqlProcess, filter: Record<string, unknown> = {}): Promise<RunRow[]> {
  const res = await p.graphql<{ runs: { nodes: RunRow[] } }>(
    `query($filter: RunFilter) { runs(filter: $filter, first: 500) { nodes { id status scheduledAt failureCode failureDetails runnerInstanceId jobKey } } }`,
    { filter },
  );
  if (!res.data) throw new Error(`runs failed: ${JSON.stringify(res.errors)}`);
  return res.data.runs.nodes.slice().reverse();
}

/** (job, slot) pairs recorded more than once: always [] — the slot key guarantees it. */
export function duplicates(rows: RunRow[]): string[] {
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(`${r.jobKey}@${r.scheduledAt}`, (seen.get(`${r.jobKey}@${r.scheduledAt}`) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}
