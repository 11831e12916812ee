import { Field, ID, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';

@ObjectType('Instance', { description: 'A cronql runtime recorded alive in the database (it beats every CRONQL_HEARTBEAT_MS).' })
export class Instance {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: '`all` or `scheduler`.' })
  role!: string;

  @Field(() => String, { nullable: true })
  host?: string | null;

  @Field(() => String, { nullable: true, description: 'The cronql version it runs.' })
  version?: string | null;

  @Field(() => DateTimeScalar)
  startedAt!: Date;

  @Field(() => DateTimeScalar, { description: 'Its last heartbeat (database time).' })
  heartbeatAt!: Date;

  @Field(() => Int, { description: 'RUNNING runs the database says it runs.' })
  activeRuns!: number;

  @Field(() => Int, { description: 'Jobs it arms: its share of the ACTIVE jobs (recorded with its heartbeat; 0 for an API-only instance).' })
  ownedJobs!: number;
}
