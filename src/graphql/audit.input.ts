import { Field, InputType } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';

@InputType('AuditFilter', { description: 'Every field given must match (exact values).' })
export class AuditFilterInput {
  @Field(() => String, { nullable: true })
  actor?: string | null;

  @Field(() => [String], { nullable: true, description: 'Any of these actions (at most 50).' })
  action?: string[] | null;

  @Field(() => String, { nullable: true })
  jobKey?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Entries at or after this instant.' })
  after?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Entries before this instant.' })
  before?: Date | null;
}
