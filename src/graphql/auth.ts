import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthCheckerFn } from 'type-graphql';
import type { AccessRole, GraphQLContext, Principal } from './context.type.js';
import type { GraphQLError } from 'graphql';
import type { TokenVerdict } from '../services/token.service.js';
import { forbidden, tokenEnded, unauthenticated } from './errors.js';

export interface Tokens {
  /** Token of the ADMIN role (`CRONQL_ADMIN_TOKEN`, or the generated one). */
  adminToken: string;
  /** Optional token of the read-only VIEWER role (`CRONQL_VIEWER_TOKEN`). */
  viewerToken?: string;
}

/** Checks a named token's secret (services/token.service.ts); absent, only the environment's tokens are known. */
export interface NamedTokens {
  check(secret: string): Promise<TokenVerdict>;
}

/** An authenticated caller, and when its token stops being valid (null: never, or when revoked). */
export type Authentication =
  | { ok: true; principal: Principal; expiresAt: Date | null }
  | { ok: false; code: 'UNAUTHENTICATED' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED' };

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Maps bearer tokens to principals: the environment's tokens (`admin`, `viewer`) first, then the
 * named tokens of the database. Environment tokens are compared as SHA-256 digests with
 * `timingSafeEqual`: equal lengths whatever the input, so neither the length nor a prefix of a
 * token leaks through response times; every one is compared, match or not. Named tokens are
 * found by the digest of their secret, the only thing stored (see docs/security.md).
 */
export class TokenAuthenticator {
  private readonly known: { digest: Buffer; principal: Principal }[];

  constructor(tokens: Tokens, private readonly named?: NamedTokens) {
    if (!tokens.adminToken) throw new Error('TokenAuthenticator: an admin token is required');
    this.known = [{ digest: digest(tokens.adminToken), principal: { role: 'ADMIN', name: 'admin', tokenId: null, scope: null } }];
    if (tokens.viewerToken) {
      if (tokens.viewerToken === tokens.adminToken) throw new Error('TokenAuthenticator: the viewer token must differ from the admin token');
      this.known.push({ digest: digest(tokens.viewerToken), principal: { role: 'VIEWER', name: 'viewer', tokenId: null, scope: null } });
    }
  }

  /** Who sends an `Authorization: Bearer <token>` value: a principal, or why not. */
  async fromAuthorization(value: unknown): Promise<Authentication> {
    if (typeof value !== 'string') return { ok: false, code: 'UNAUTHENTICATED' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
    if (!match) return { ok: false, code: 'UNAUTHENTICATED' };
    const candidate = digest(match[1]);
    let found: Principal | null = null;
    for (const entry of this.known) {
      if (timingSafeEqual(candidate, entry.digest)) found = entry.principal;
    }
    if (found) return { ok: true, principal: found, expiresAt: null };
    if (!this.named) return { ok: false, code: 'UNAUTHENTICATED' };
    const verdict = await this.named.check(match[1]);
    if (!verdict.ok) return { ok: false, code: verdict.code === 'UNKNOWN' ? 'UNAUTHENTICATED' : verdict.code };
    const { role, name, tokenId, scope, expiresAt } = verdict.identity;
    return { ok: true, principal: { role, name, tokenId, scope }, expiresAt };
  }
}

/** The error a refused authentication is answered with. */
export function authenticationError(code: 'UNAUTHENTICATED' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED'): GraphQLError {
  return code === 'UNAUTHENTICATED' ? unauthenticated() : tokenEnded(code);
}

/** Every role: reads (queries and subscriptions). */
const READERS: readonly AccessRole[] = ['ADMIN', 'OPERATOR', 'VIEWER'];
/** The day-to-day actions on existing jobs and runs. */
const OPERATORS: readonly AccessRole[] = ['ADMIN', 'OPERATOR'];
/** Creating, versioning and retiring jobs; secrets, calendars, channels, pools, tokens, instances. */
const ADMINS: readonly AccessRole[] = ['ADMIN'];

/**
 * Who may run each root field of the schema: the one place that says it (docs/security.md,
 * "Roles"). Every resolver's `@Authorized` reads its entry through `rolesFor`, and
 * test/graphql/roles.test.ts walks the schema, so a new query, mutation or subscription without
 * an entry here fails it. A token's label-selector scope narrows what a role reaches; it never
 * widens what the role may do.
 */
export const ROLE_RULES = {
  // Reads: every role, except what only an unscoped ADMIN manages.
  'Query.jobs': READERS,
  'Query.job': READERS,
  'Query.runs': READERS,
  'Query.run': READERS,
  'Query.stats': READERS,
  'Query.upcoming': READERS,
  'Query.targets': READERS,
  'Query.health': READERS,
  'Query.calendars': READERS,
  'Query.calendar': READERS,
  'Query.backfill': READERS,
  'Query.backfills': READERS,
  'Query.describeSchedule': READERS,
  'Query.parseSchedule': READERS,
  'Query.previewSchedule': READERS,
  'Query.previewScheduleSlots': READERS,
  'Query.whoami': READERS,
  'Query.instances': ADMINS,
  'Query.secrets': ADMINS,
  'Query.notificationChannels': ADMINS,
  'Query.apiTokens': ADMINS,
  'Query.auditLog': ADMINS,
  'Query.concurrencyPools': READERS,
  'Subscription.runChanged': READERS,
  'Subscription.runLogs': READERS,
  // What an OPERATOR may do, exactly.
  'Mutation.pauseJob': OPERATORS,
  'Mutation.resumeJob': OPERATORS,
  'Mutation.runJobNow': OPERATORS,
  'Mutation.cancelRun': OPERATORS,
  'Mutation.skipNextRuns': OPERATORS,
  'Mutation.backfillJob': OPERATORS,
  'Mutation.cancelBackfill': OPERATORS,
  'Mutation.pauseJobs': OPERATORS,
  'Mutation.resumeJobs': OPERATORS,
  // Everything else changes what exists: ADMIN.
  'Mutation.createJob': ADMINS,
  'Mutation.createJobs': ADMINS,
  'Mutation.createJobVersion': ADMINS,
  'Mutation.createJobVersions': ADMINS,
  'Mutation.retireJob': ADMINS,
  'Mutation.setSecret': ADMINS,
  'Mutation.deleteSecret': ADMINS,
  'Mutation.setCalendar': ADMINS,
  'Mutation.deleteCalendar': ADMINS,
  'Mutation.setNotificationChannel': ADMINS,
  'Mutation.deleteNotificationChannel': ADMINS,
  'Mutation.testNotificationChannel': ADMINS,
  'Mutation.createApiToken': ADMINS,
  'Mutation.revokeApiToken': ADMINS,
  'Mutation.setConcurrencyPool': ADMINS,
  'Mutation.deleteConcurrencyPool': ADMINS,
} as const satisfies Record<string, readonly AccessRole[]>;

/** A root field of the schema, as `Query.jobs`, `Mutation.pauseJob`, `Subscription.runChanged`. */
export type Operation = keyof typeof ROLE_RULES;

/** The roles that may run an operation, for its resolver's `@Authorized(...rolesFor('Mutation.pauseJob'))`. */
export function rolesFor(operation: Operation): AccessRole[] {
  return [...ROLE_RULES[operation]];
}

/**
 * type-graphql's `@Authorized(...roles)`: no roles = any authenticated caller. Unauthenticated
 * callers are turned away before execution (src/http/graphql.ts); this is the second line.
 */
export const authChecker: AuthCheckerFn<GraphQLContext, AccessRole> = ({ context }, roles) => {
  const principal = context.principal;
  if (!principal) throw unauthenticated();
  if (roles.length > 0 && !roles.includes(principal.role)) {
    throw forbidden(`the ${principal.role} role may not do this; it needs ${roles.join(' or ')}`);
  }
  return true;
};
