import { registerEnumType } from 'type-graphql';
import { CatchUpPolicy, JobStatus, RunStatus, ScheduleType, TriggerType } from '../domain/enums.js';

// The domain enums are the GraphQL enums: same names, same values, stored as is in the database.
registerEnumType(ScheduleType, { name: 'ScheduleType' });
registerEnumType(JobStatus, { name: 'JobStatus' });
registerEnumType(RunStatus, { name: 'RunStatus' });
registerEnumType(TriggerType, { name: 'TriggerType' });
registerEnumType(CatchUpPolicy, {
  name: 'CatchUpPolicy',
  description: 'What becomes of slots missed while they could not fire (process down, stall, clock jump, database unreachable).',
  valuesConfig: {
    NONE: { description: 'Recorded SKIPPED/MISSED; only a slot still within the misfire grace runs.' },
    LATEST: { description: 'The latest missed slot runs; the others are recorded MISSED.' },
    ALL: { description: 'The missed slots run, oldest first, one at a time, up to catchUpLimit; the rest are recorded MISSED.' },
  },
});

export { CatchUpPolicy, JobStatus, RunStatus, ScheduleType, TriggerType };
