import { Field, ObjectType } from 'type-graphql';

/** A target a job may name: a built-in or one of the application's own. */
@ObjectType('Target')
export class Target {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;
}
