import { redactCredentials } from '../services/redaction.js';
import type { GraphQLContext } from './context.type.js';

/** A JSON value as the caller may read it: whole for ADMIN, credentials redacted for VIEWER. */
export function forRole(ctx: GraphQLContext, value: unknown): unknown {
  return ctx.principal.role === 'ADMIN' ? value : redactCredentials(value);
}
