import { useEffect, useState } from 'preact/hooks';
import { useQuery } from './hooks.js';
import { Q, type InstanceRow } from './queries.js';
import { useSession } from './session-context.js';
import { ErrorBox, Time } from './ui.js';

/**
 * The runtimes alive (ADMIN): role, host, version, heartbeat, RUNNING runs, and how many jobs each
 * arms — the share of the jobs it holds among the schedulers (docs/scaling.md). Re-read every 5 s.
 */
export function InstancesView() {
  const { role } = useSession();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 5_000);
    return () => clearInterval(timer);
  }, []);
  const { data, error } = useQuery(Q.instances, role === 'ADMIN' ? {} : null, String(tick));
  if (role !== 'ADMIN') return <p role="alert">The instances list needs the ADMIN token.</p>;
  if (error) return <ErrorBox error={error} />;
  return (
    <section aria-labelledby="instances-title">
      <h1 id="instances-title">Instances</h1>
      <p class="muted">Each scheduler arms its share of the active jobs (every job on CRONQL_JOB_REPLICAS of them); API instances arm none.</p>
      {!data ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <table data-testid="instances-table">
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Role</th>
              <th scope="col">Host</th>
              <th scope="col">Version</th>
              <th scope="col">Started</th>
              <th scope="col">Heartbeat</th>
              <th scope="col">Running</th>
              <th scope="col">Jobs armed</th>
            </tr>
          </thead>
          <tbody>
            {data.instances.map((i) => (
              <tr data-instance-id={i.id}>
                <td class="mono">{i.id}</td>
                <td>{i.role}</td>
                <td>{i.host ?? '—'}</td>
                <td>{i.version ?? '—'}</td>
                <td>
                  <Time iso={i.startedAt} />
                </td>
                <td>
                  <Time iso={i.heartbeatAt} />
                </td>
                <td>{i.activeRuns}</td>
                <td data-testid="owned-jobs">{i.ownedJobs}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
