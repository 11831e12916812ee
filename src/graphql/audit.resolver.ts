import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { AuditRow } from '../db/audit.js';
import { AuditFilterInput } from './audit.input.js';
import { AuditConnection } from './audit.type.js';
import { toConnection, type Connection } from './connection.type.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';

/** The audit log: ADMIN only, and never scoped (it names every team's jobs and tokens). */
@Resolver()
export class AuditResolver {
  @Authorized(...rolesFor('Query.auditLog'))
  @Query(() => AuditConnection, { description: 'Every change, newest first (ADMIN).' })
  async auditLog(
    @Arg('first', () => Int, { nullable: true, defaultValue: 50 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('filter', () => AuditFilterInput, { nullable: true }) filter: AuditFilterInput | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<AuditRow>> {
    return toConnection(await ctx.cronql.audit.list({ ...filter }, first, after));
  }
}
