import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { RunStatus, TriggerType } from './enums.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('StatusCount')
export class StatusCount {
  @Field(() => RunStatus) status!: RunStatus;
  @Field(() => Int) count!: number;
}

@ObjectType('TriggerCount')
export class TriggerCount {
  @Field(() => TriggerType) trigger!: TriggerType;
  @Field(() => Int) count!: number;
}

@ObjectType('TargetStats')
export class TargetStats {
  @Field(() => String) target!: string;
  @Field(() => Int) runs!: number;
  @Field(() => Int) failures!: number;
  @Field(() => Float, { description: 'FAILED among the runs that SUCCEEDED or FAILED (0 when none did).' })
  failureRate!: number;
}

@ObjectType('Lateness', { description: 'From a scheduled slot to its run starting, SCHEDULED runs only.' })
export class Lateness {
  @Field(() => Int) p50Ms!: number;
  @Field(() => Int) p90Ms!: number;
  @Field(() => Int) p99Ms!: number;
  @Field(() => Int) maxMs!: number;
}

@ObjectType('JobFailures')
export class JobFailures {
  @Field(() => ID) jobId!: string;
  @Field(() => String) jobKey!: string;
  @Field(() => Int) failures!: number;
  @Field(() => Int) runs!: number;
}

@ObjectType('Stats', { description: 'Run history over a window (runs scheduled in it: a slot in the window, or a run-now made in it).' })
export class Stats {
  @Field(() => DateTimeScalar) since!: Date;
  @Field(() => DateTimeScalar) until!: Date;
  @Field(() => Int) total!: number;
  @Field(() => [StatusCount]) byStatus!: StatusCount[];
  @Field(() => [TargetStats]) byTarget!: TargetStats[];
  @Field(() => [TriggerCount]) byTrigger!: TriggerCount[];
  @Field(() => Lateness, { nullable: true }) lateness?: Lateness | null;
  @Field(() => [JobFailures], { description: 'The jobs with the most FAILED runs in the window (at most 10).' })
  mostFailing!: JobFailures[];
}
