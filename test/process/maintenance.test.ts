import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import type { CronqlProcess } from '../support/processes.js';
import { useProcessTest } from './support.js';

/** The cluster-wide maintenance duties (docs/operations.md, "Maintenance"). */
const CLUSTER_DUTIES = ['heartbeat-timeouts', 'lost-runs', 'pending-runs', 'retry-wakeups', 'pause-ends', 'stranded-buffers', 'chain-stops', 'backfills', 'late-jobs', 'instance-pruning', 'retention'];
const INSTANCE_DUTIES = ['heartbeat', 'lease', 'rebalance', 'own-runs'];

/** What an operator sees on /metrics: passes by duty (summed over results), and whether it holds the lease. */
async function maintenance(p: CronqlProcess): Promise<{ held: boolean; passes: Record<string, number> }> {
  const res = await p.get('/metrics', 10_000);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const passes: Record<string, number> = {};
  for (const m of res.body.matchAll(/^cronql_maintenance_passes_total\{duty="([^"]+)",result="[^"]+"\} (\d+)$/gm)) {
    passes[m[1]] = (passes[m[1]] ?? 0) + Number(m[2]);
  }
  return { held: /^cronql_maintenance_lease_held 1$/m.test(res.body), passes };
}

describe('maintenance on three instances', () => {
  const t = useProcessTest();
  // The lease lasts LOST_AFTER − 2 heartbeats (4 s): a holder briefly starved of CPU keeps it. A
  // killed holder's lease lapses at most 4 s after the kill, and is taken at the next try, a
  // heartbeat later at most: within the bound with a heartbeat to spare for a busy machine.
  const env = { CRONQL_HEARTBEAT_MS: '1000', CRONQL_LOST_AFTER_MS: '6000' };
  const lostAfterMs = 6_000;

  it('each cluster-wide duty runs on exactly one instance; killed, it moves to another within the lost-runner bound', async () => {
    const first = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'maint-a' } });
    const procs = [first, ...(await Promise.all(['maint-b', 'maint-c'].map((id) => t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: id } }))))];

    // One holder, whose cluster duties pass; every instance runs its own duties.
    const before = await eventually(async () => {
      const seen = await Promise.all(procs.map(maintenance));
      const ready = seen.filter((s) => s.held).length === 1 && seen.every((s) => INSTANCE_DUTIES.every((d) => (s.passes[d] ?? 0) > 0));
      return ready ? seen : null;
    }, 20_000);
    const holder = before.findIndex((s) => s.held);
    const holderBefore = before[holder].passes['lost-runs'] ?? 0;
    // Several periods later: the holder ran each cluster duty again, the others none at all.
    const after = await eventually(async () => {
      const seen = await Promise.all(procs.map(maintenance));
      return (seen[holder].passes['lost-runs'] ?? 0) >= holderBefore + 4 ? seen : null;
    }, 20_000);
    for (const duty of CLUSTER_DUTIES) {
      after.forEach((s, i) => {
        if (i === holder) expect(s.passes[duty] ?? 0, `${duty} on the holder`).toBeGreaterThan(0);
        else expect(s.passes[duty] ?? 0, `${duty} on ${i}`).toBe(0);
      });
    }
    for (const duty of INSTANCE_DUTIES) {
      after.forEach((s, i) => expect(s.passes[duty] ?? 0, `${duty} on ${i}`).toBeGreaterThan(before[i].passes[duty] ?? 0));
    }
    const onePerPeriod = after[holder].passes['lost-runs'] - holderBefore;
    expect(after[holder].passes['heartbeat'] - before[holder].passes['heartbeat']).toBeGreaterThanOrEqual(onePerPeriod - 2);

    // kill -9 of the holder: another instance takes the lease within the lost-runner bound and
    // runs the cluster duties; the third still runs none.
    const killed = procs[holder];
    const survivors = procs.filter((_, i) => i !== holder);
    const gainedBefore = survivors.map((p) => p.logs.filter((l) => l.json?.msg === 'this instance runs the cluster-wide maintenance duties').length);
    killed.kill('SIGKILL');
    const killedAt = Date.now();
    await killed.exited;
    const next = await eventually(async () => {
      const seen = await Promise.all(survivors.map(maintenance));
      const i = seen.findIndex((s) => s.held && (s.passes['lost-runs'] ?? 0) > 0);
      return i >= 0 ? { i, seen } : null;
    }, 20_000);
    const gained = survivors[next.i].logs.filter((l) => l.json?.msg === 'this instance runs the cluster-wide maintenance duties');
    expect(gained.length).toBe(gainedBefore[next.i] + 1);
    const movedMs = Number(gained.at(-1)!.json!.time) - killedAt;
    console.log(`maintenance lease moved ${movedMs} ms after kill -9 of its holder (heartbeat 1 s, lost after ${lostAfterMs} ms)`);
    expect(movedMs).toBeLessThan(lostAfterMs);
    const other = next.seen[1 - next.i];
    expect(other.held).toBe(false);
    for (const duty of CLUSTER_DUTIES) expect(other.passes[duty] ?? 0, `${duty} on the third instance`).toBe(0);

    // A clean stop gives the lease up as firing stops: the last instance takes it at its next
    // try (a heartbeat at most), well before the lease (4 s) would have lapsed.
    const third = survivors[1 - next.i];
    survivors[next.i].kill('SIGTERM');
    const stoppedAt = Date.now();
    const line = await third.waitForLog(/this instance runs the cluster-wide maintenance duties/, 20_000);
    const handedMs = Number(JSON.parse(line).time) - stoppedAt;
    console.log(`maintenance lease handed over ${handedMs} ms after SIGTERM of its holder`);
    expect(handedMs).toBeLessThan(3_000);
    await eventually(async () => ((await maintenance(third)).passes['lost-runs'] ?? 0) > 0, 10_000);
  }, 120_000);
});
