import { useEffect, useState } from 'preact/hooks';

/**
 * Views live in the fragment (`#/runs`, `#/jobs/<id>`): links work with the keyboard and the
 * back button, and no view ever makes the server see a new URL.
 */
export type Route =
  | { view: 'jobs' }
  | { view: 'runs' }
  | { view: 'job'; id: string }
  | { view: 'new-job' }
  | { view: 'new-version'; id: string }
  | { view: 'run'; id: string }
  | { view: 'instances' }
  | { view: 'calendars' }
  | { view: 'pools' }
  | { view: 'upcoming' }
  | { view: 'audit' }
  | { view: 'tokens' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').split('?')[0]!.replace(/\/+$/, '');
  const parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  if (parts[0] === 'runs' && parts[1]) return { view: 'run', id: parts[1] };
  if (parts[0] === 'runs') return { view: 'runs' };
  if (parts[0] === 'instances') return { view: 'instances' };
  if (parts[0] === 'calendars') return { view: 'calendars' };
  if (parts[0] === 'pools') return { view: 'pools' };
  if (parts[0] === 'upcoming') return { view: 'upcoming' };
  if (parts[0] === 'audit') return { view: 'audit' };
  if (parts[0] === 'tokens') return { view: 'tokens' };
  if (parts[0] === 'jobs' && parts[1] === 'new') return { view: 'new-job' };
  if (parts[0] === 'jobs' && parts[1] && parts[2] === 'new-version') return { view: 'new-version', id: parts[1] };
  if (parts[0] === 'jobs' && parts[1]) return { view: 'job', id: parts[1] };
  return { view: 'jobs' };
}

export const href = {
  jobs: () => '#/jobs',
  runs: () => '#/runs',
  job: (id: string) => `#/jobs/${encodeURIComponent(id)}`,
  newJob: () => '#/jobs/new',
  newVersion: (id: string) => `#/jobs/${encodeURIComponent(id)}/new-version`,
  run: (id: string) => `#/runs/${encodeURIComponent(id)}`,
  instances: () => '#/instances',
  calendars: () => '#/calendars',
  pools: () => '#/pools',
  upcoming: () => '#/upcoming',
  audit: () => '#/audit',
  tokens: () => '#/tokens',
};

export function navigate(to: string): void {
  location.hash = to;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
