import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('HealthCheck')
export class HealthCheck {
  @Field(() => String, { description: 'database, runtime (armed and reaching the database), heartbeat (recorded recently).' })
  name!: string;

  @Field(() => String, { description: 'ok or failing.' })
  status!: string;
}

@ObjectType('Health', { description: 'What /readyz reports, for this instance.' })
export class Health {
  @Field(() => Boolean)
  ready!: boolean;

  @Field(() => [HealthCheck])
  checks!: HealthCheck[];

  @Field(() => Int, { nullable: true, description: 'Runs settled RUNNER_LOST or STALE_TIMEOUT in the last hour, all instances.' })
  lostRunsLastHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Slots recorded MISSED in the last hour, all instances (summary rows count as one).' })
  missedSlotsLastHour?: number | null;
}
