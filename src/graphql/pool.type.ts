import { Field, Int, ObjectType } from 'type-graphql';

/** A concurrency pool. Resolvers return the store's rows (db/pool-store.ts); `jobs` is a field resolver. */
@ObjectType('ConcurrencyPool', { description: 'A limit shared by many jobs: at most `limit` of their runs RUNNING at once, across every instance.' })
export class ConcurrencyPool {
  @Field(() => String)
  name!: string;

  @Field(() => Int, { description: 'The most runs of its jobs RUNNING at once.' })
  limit!: number;

  @Field(() => Int, { description: 'Its runs RUNNING now.' })
  running!: number;

  @Field(() => Int, { description: 'Its runs due and waiting PENDING for a place (they start oldest due first).' })
  waiting!: number;
}
