import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PageInfo } from './connection.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';

@ObjectType('AuditEntry', { description: 'One change, as the mutation that made it recorded it in the same transaction (docs/operations.md, "Audit log").' })
export class AuditEntry {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTimeScalar)
  at!: Date;

  @Field(() => String, { description: 'The token\'s name (`admin`, `viewer`, a named token\'s); `cronql` for what cronql did itself (a pause that ended).' })
  actor!: string;

  @Field(() => String, { description: 'The mutation\'s name (pauseJob, setSecret …), or cronql\'s own (pauseEnded).' })
  action!: string;

  @Field(() => String, { nullable: true, description: 'The job it was about, if any.' })
  jobKey?: string | null;

  @Field(() => String, { nullable: true, description: 'What was acted on beside the job: a version\'s, run\'s or backfill\'s id, a secret\'s, calendar\'s or channel\'s name.' })
  subject?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'What changed (never a secret\'s value, a channel\'s URL or a payload).' })
  details?: unknown;
}

@ObjectType('AuditConnection')
export class AuditConnection {
  @Field(() => [AuditEntry])
  nodes!: AuditEntry[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  // Counted only when selected: the value may be a promise (toConnection), which only a resolver may return.
  @Field(() => Int, { simple: false, description: 'Matches of the filter, ignoring `first` and `after`.' })
  totalCount!: number;
}
