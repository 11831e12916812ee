import { useState } from 'preact/hooks';
import { useQuery } from './hooks.js';
import { Q, type PoolRow } from './queries.js';
import { href } from './router.js';
import { useSession } from './session-context.js';
import { ErrorBox } from './ui.js';

/**
 * The concurrency pools (docs/behaviour.md, "Concurrency pools"): each pool's limit, its runs
 * running and waiting now (the whole cluster) and the jobs in it. ADMIN sets a pool's limit
 * (creating it) and deletes one no live job names (POOL_IN_USE otherwise).
 */
export function PoolsView() {
  const { role } = useSession();
  const { data, error, reload } = useQuery(Q.pools, {}, '');
  if (error) return <ErrorBox error={error} />;
  return (
    <section aria-labelledby="pools-title">
      <h1 id="pools-title">Concurrency pools</h1>
      <p class="muted">At most a pool's limit of its jobs' runs are RUNNING at once, across every instance; the others wait PENDING, oldest first.</p>
      {role === 'ADMIN' && <PoolForm onDone={reload} />}
      {!data ? (
        <p aria-busy="true">Loading…</p>
      ) : data.concurrencyPools.length === 0 ? (
        <p>No concurrency pools yet.</p>
      ) : (
        <table data-testid="pools">
          <thead>
            <tr>
              <th scope="col">Pool</th>
              <th scope="col">Running</th>
              <th scope="col">Waiting</th>
              <th scope="col">Jobs</th>
              {role === 'ADMIN' && <th scope="col" />}
            </tr>
          </thead>
          <tbody>
            {data.concurrencyPools.map((p) => (
              <PoolLine pool={p} admin={role === 'ADMIN'} onDeleted={reload} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PoolLine({ pool: p, admin, onDeleted }: { pool: PoolRow; admin: boolean; onDeleted(): void }) {
  const { api } = useSession();
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    setError(null);
    try {
      await api.request(Q.deletePool, { name: p.name });
      onDeleted();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <tr data-pool={p.name}>
      <th scope="row">{p.name}</th>
      <td data-testid="pool-running">
        {p.running} / {p.limit}
      </td>
      <td data-testid="pool-waiting">{p.waiting}</td>
      <td>
        {p.jobs.length
          ? p.jobs.map((j, i) => (
              <>
                {i > 0 && ', '}
                <a href={href.job(j.id)}>
                  {j.key} v{j.version}
                </a>
              </>
            ))
          : 'no live job'}
      </td>
      {admin && (
        <td>
          <button type="button" onClick={remove}>
            Delete
          </button>
          <ErrorBox error={error} />
        </td>
      )}
    </tr>
  );
}

function PoolForm({ onDone }: { onDone(): void }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('5');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.request(Q.setPool, { name, limit: Number(limit) });
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Set a pool's limit">
      <label>
        Pool <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required />
      </label>
      <label>
        Limit <input type="number" min={1} max={10000} value={limit} onInput={(e) => setLimit((e.target as HTMLInputElement).value)} required />
      </label>
      <button type="submit" class="primary">
        Set limit
      </button>
      <ErrorBox error={error} />
    </form>
  );
}
