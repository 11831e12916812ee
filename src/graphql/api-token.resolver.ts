import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { ApiTokenRow } from '../db/api-tokens.js';
import { TokenRole } from '../domain/token-role.js';
import { rolesFor } from './auth.js';
import type { GraphQLContext } from './context.type.js';
import { ApiToken, CreatedToken } from './api-token.type.js';
import { DateTimeScalar } from './scalars.js';

const toToken = (t: ApiTokenRow): ApiToken => ({
  id: t.id,
  name: t.name,
  role: t.role as TokenRole,
  labelSelector: t.labelSelector,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
});

/** Named tokens: managed by an (unscoped) ADMIN; any caller may ask who it is. */
@Resolver(() => ApiToken)
export class ApiTokenResolver {
  @Authorized(...rolesFor('Query.apiTokens'))
  @Query(() => [ApiToken], { description: 'Every named token, revoked ones included, newest first (ADMIN). Never a secret.' })
  async apiTokens(@Ctx() ctx: GraphQLContext): Promise<ApiToken[]> {
    return (await ctx.cronql.tokens.list()).map(toToken);
  }

  @Authorized(...rolesFor('Query.whoami'))
  @Query(() => ApiToken, {
    nullable: true,
    description: 'The token of this request: its name, role and scope. The environment\'s tokens answer id "env:admin" / "env:viewer".',
  })
  async whoami(@Ctx() ctx: GraphQLContext): Promise<ApiToken | null> {
    const p = ctx.principal;
    if (p.tokenId === null) {
      return {
        id: `env:${p.name}`,
        name: p.name,
        role: p.role as TokenRole,
        labelSelector: null,
        createdAt: ctx.cronql.tokens.environmentSince,
        expiresAt: null,
        lastUsedAt: null,
        revokedAt: null,
      };
    }
    const token = await ctx.cronql.tokens.get(p.tokenId);
    return token && toToken(token);
  }

  @Authorized(...rolesFor('Mutation.createApiToken'))
  @Mutation(() => CreatedToken, {
    description: 'Creates a named token (ADMIN); its secret is in this answer only. A labelSelector is allowed on OPERATOR and VIEWER tokens only.',
  })
  async createApiToken(
    @Arg('name', () => String) name: string,
    @Arg('role', () => TokenRole) role: TokenRole,
    @Arg('labelSelector', () => String, { nullable: true }) labelSelector: string | null | undefined,
    @Arg('expiresAt', () => DateTimeScalar, { nullable: true }) expiresAt: Date | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedToken> {
    const { token, secret } = await ctx.cronql.tokens.create({ name, role, labelSelector, expiresAt }, ctx.principal.name);
    return { token: toToken(token), secret };
  }

  @Authorized(...rolesFor('Mutation.revokeApiToken'))
  @Mutation(() => ApiToken, {
    description: 'Revokes a named token (ADMIN): refused from its next request on every instance (TOKEN_REVOKED), its open WebSockets closed (4403) within a second. Revoking it again changes nothing.',
  })
  async revokeApiToken(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<ApiToken> {
    return toToken(await ctx.cronql.tokens.revoke(id, ctx.principal.name));
  }
}
