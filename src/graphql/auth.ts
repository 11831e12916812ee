import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthCheckerFn } from 'type-graphql';
import type { AccessRole, GraphQLContext, Principal } from './context.type.js';
import { forbidden, unauthenticated } from './errors.js';

export interface Tokens {
  /** Token of the ADMIN role (`CRONQL_ADMIN_TOKEN`, or the generated one). */
  adminToken: string;
  /** Optional token of the read-only VIEWER role (`CRONQL_VIEWER_TOKEN`). */
  viewerToken?: string;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Maps bearer tokens to principals. Tokens are compared as SHA-256 digests with
 * `timingSafeEqual`: equal lengths whatever the input, so neither the length nor a prefix of a
 * token leaks through response times. Every known token is compared, match or not.
 */
export class TokenAuthenticator {
  private readonly known: { digest: Buffer; principal: Principal }[];

  constructor(tokens: Tokens) {
    if (!tokens.adminToken) throw new Error('TokenAuthenticator: an admin token is required');
    this.known = [{ digest: digest(tokens.adminToken), principal: { role: 'ADMIN', name: 'admin', tokenId: null, scope: null } }];
    if (tokens.viewerToken) {
      if (tokens.viewerToken === tokens.adminToken) throw new Error('TokenAuthenticator: the viewer token must differ from the admin token');
      this.known.push({ digest: digest(tokens.viewerToken), principal: { role: 'VIEWER', name: 'viewer', tokenId: null, scope: null } });
    }
  }

  /** The principal of an `Authorization: Bearer <token>` value, or null (no or unknown token). */
  fromAuthorization(value: unknown): Principal | null {
    if (typeof value !== 'string') return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
    if (!match) return null;
    const candidate = digest(match[1]);
    let found: Principal | null = null;
    for (const entry of this.known) {
      if (timingSafeEqual(candidate, entry.digest)) found = entry.principal;
    }
    return found;
  }
}

/**
 * Who may start and cancel backfills: the one place that says it (an operator role would be added
 * here, once there is one).
 */
export const BACKFILL_ROLES: AccessRole[] = ['ADMIN'];

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
