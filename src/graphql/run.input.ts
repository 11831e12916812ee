import { Field, ID, InputType } from 'type-graphql';
import { RunStatus, TriggerType } from './enums.js';
import { DateTimeScalar } from './scalars.js';

/** Used by `runs` and by `runChanged` (where it filters on the server, see run.service.ts). */
@InputType('RunFilter')
export class RunFilterInput {
  @Field(() => ID, { nullable: true })
  jobId?: string | null;

  @Field(() => String, { nullable: true })
  jobKey?: string | null;

  @Field(() => [RunStatus], { nullable: true })
  status?: RunStatus[] | null;

  @Field(() => String, { nullable: true })
  target?: string | null;

  @Field(() => [TriggerType], { nullable: true })
  triggerType?: TriggerType[] | null;

  @Field(() => DateTimeScalar, { nullable: true })
  scheduledAfter?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  scheduledBefore?: Date | null;

  @Field(() => String, { nullable: true, description: 'Runs of job versions whose labels match this label selector (empty: every run; INVALID_SELECTOR).' })
  labelSelector?: string | null;
}
