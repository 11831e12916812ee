import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';
import type { LiveFeed } from './live.js';

/** What every view needs: the API client, the live feed, and the caller's role. */
export interface Session {
  api: Api;
  live: LiveFeed;
  /** ADMIN sees the actions; VIEWER does not (the API refuses them anyway). */
  role: 'ADMIN' | 'VIEWER';
  targets: { name: string; description: string | null }[];
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
