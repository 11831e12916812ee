import { Field, Int, ObjectType } from 'type-graphql';
import { PageInfo } from './connection.type.js';
import { DateTimeScalar } from './scalars.js';

/** One line a run's handler wrote with `ctx.log` (docs/run-logs.md); `fields` is resolved in run-log.resolver.ts. */
@ObjectType('RunLogLine', { description: "One line a run's handler wrote with ctx.log, kept with the run." })
export class RunLogLine {
  @Field(() => Int, { description: "The line's place in its run's log, from 1: the cursor of Run.logs, and how a page and the runLogs stream are stitched together." })
  sequence!: number;

  @Field(() => DateTimeScalar)
  at!: Date;

  @Field(() => String, { description: 'trace, debug, info, warn, error or fatal.' })
  level!: string;

  @Field(() => String)
  message!: string;
}

/** A page of a run's log, oldest line first. */
@ObjectType('RunLogConnection')
export class RunLogConnection {
  @Field(() => [RunLogLine])
  nodes!: RunLogLine[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Boolean, { description: 'Lines past the bound (1,000 lines / 256 KiB) were not kept; the last line says how many. Set once the run has ended.' })
  truncated!: boolean;
}
