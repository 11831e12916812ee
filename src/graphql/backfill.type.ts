import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { BackfillScope, BackfillState } from '../domain/enums.js';
import { DateTimeScalar } from './scalars.js';

registerEnumType(BackfillState, {
  name: 'BackfillState',
  description: 'Where a backfill is.',
  valuesConfig: {
    PLANNED: { description: 'A dry run: the plan, nothing written.' },
    RUNNING: { description: 'Its slots run, oldest first, one at a time.' },
    DONE: { description: 'Every slot of its plan ran (or was settled).' },
    CANCELED: { description: 'Canceled: no slot of it starts any more.' },
  },
});
registerEnumType(BackfillScope, {
  name: 'BackfillScope',
  description: 'Which slots of its range a backfill runs.',
  valuesConfig: {
    MISSING: { description: 'Slots with no run, or only SKIPPED runs (missed, overlap, calendar…).' },
    NOT_SUCCEEDED: { description: 'Also slots whose last attempt FAILED or was CANCELED (the default).' },
    ALL: { description: 'Every slot again.' },
  },
});

export { BackfillScope, BackfillState };

/** A backfill: a job's past slots of a range, run again (trigger BACKFILL). */
@ObjectType('Backfill', { description: "A job's past slots of [from, to], planned by scope and run oldest first, one at a time (trigger BACKFILL)." })
export class Backfill {
  @Field(() => ID, { description: "A dry run's id is not stored: nothing was written." })
  id!: string;

  @Field(() => DateTimeScalar)
  from!: Date;

  @Field(() => DateTimeScalar)
  to!: Date;

  @Field(() => BackfillScope)
  scope!: BackfillScope;

  @Field(() => [DateTimeScalar], { description: 'The slots it runs (a dry run: would run), oldest first.' })
  slots!: Date[];

  @Field(() => Int, { description: 'Slots of the range the scope left out (or that another backfill in flight runs).' })
  skippedExisting!: number;

  @Field(() => Int, { description: 'Runs it created so far (a dry run: 0).' })
  created!: number;

  @Field(() => BackfillState)
  state!: BackfillState;

  @Field(() => String, { nullable: true })
  requestedBy!: string | null;

  @Field(() => String)
  reason!: string;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When it became DONE or CANCELED.' })
  finishedAt!: Date | null;
}
