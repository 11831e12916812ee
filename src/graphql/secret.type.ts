import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';

/** A secret as the API shows it: its name and dates, never its value. */
@ObjectType('Secret', { description: 'A value payloads reference as ${secrets.NAME}; encrypted at rest, never readable back.' })
export class Secret {
  @Field(() => String)
  name!: string;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar, { description: 'When the value was last set (a rotation).' })
  updatedAt!: Date;
}
