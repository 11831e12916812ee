import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Job } from './job.type.js';
import { Secret } from './secret.type.js';

interface SecretRecord {
  name: string;
  createdAt: Date;
  updatedAt: Date;
  usedBy?: string[];
}

/** Secrets are ADMIN-only, both ways; no field ever carries a value. */
@Resolver(() => Secret)
export class SecretResolver {
  @Authorized(...rolesFor('Query.secrets'))
  @Query(() => [Secret], { description: 'Every secret, by name (ADMIN). Values are never returned.' })
  secrets(@Ctx() ctx: GraphQLContext): Promise<SecretRecord[]> {
    return ctx.cronql.secrets.list();
  }

  @Authorized(...rolesFor('Mutation.setSecret'))
  @Mutation(() => Secret, { description: 'Creates or rotates a secret (ADMIN); the next run of every job referencing it uses the new value.' })
  setSecret(@Arg('name', () => String) name: string, @Arg('value', () => String) value: string, @Ctx() ctx: GraphQLContext): Promise<SecretRecord> {
    return ctx.cronql.secrets.set(name, value, ctx.principal.name);
  }

  @Authorized(...rolesFor('Mutation.deleteSecret'))
  @Mutation(() => Boolean, { description: 'Deletes a secret (ADMIN); runs referencing it then fail UNKNOWN_SECRET. False when there was none.' })
  deleteSecret(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return ctx.cronql.secrets.delete(name, ctx.principal.name);
  }

  @FieldResolver(() => [Job], { description: 'The live (not RETIRED) job versions whose payload references it.' })
  async usedBy(@Root() secret: SecretRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord[]> {
    const ids = secret.usedBy ?? (await ctx.cronql.secrets.list()).find((s) => s.name === secret.name)?.usedBy ?? [];
    const jobs = await ctx.loaders.job.loadMany(ids);
    return jobs.filter((j): j is JobRecord => j !== null && !(j instanceof Error));
  }
}
