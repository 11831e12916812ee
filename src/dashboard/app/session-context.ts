import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';
import type { LiveFeed } from './live.js';

/** What every view needs: the API client, the live feed, and the caller's role. */
export interface Session {
  api: Api;
  live: LiveFeed;
  /** What the token may do (`whoami`): the views show the actions of its role only (the API refuses the others anyway). */
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER';
  /** The token's name, as the API records it (`admin`, `viewer`, or a named token's). */
  name: string;
  targets: { name: string; description: string | null }[];
}

/**
 * Whether the role may act on existing jobs and runs — pause, resume, skip, run now, cancel,
 * backfill: ADMIN and OPERATOR (the API's rule, src/graphql/auth.ts ROLE_RULES). Creating,
 * versioning and retiring jobs, calendars and the admin pages stay ADMIN's.
 */
export const mayOperate = (role: Session['role']): boolean => role === 'ADMIN' || role === 'OPERATOR';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
