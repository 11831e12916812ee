import { Field, ObjectType } from 'type-graphql';
import { PageInfo } from './connection.type.js';
import { Job } from './job.type.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('UpcomingSlot', { description: 'A slot of a job that will run, in the upcoming timeline.' })
export class UpcomingSlot {
  @Field(() => Job)
  job!: Job;

  @Field(() => DateTimeScalar)
  slot!: Date;

  @Field(() => DateTimeScalar, { description: 'When it starts: the slot plus the job\'s jitter offset.' })
  dueAt!: Date;
}

@ObjectType('UpcomingConnection')
export class UpcomingConnection {
  @Field(() => [UpcomingSlot])
  nodes!: UpcomingSlot[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
