import { registerEnumType } from 'type-graphql';
import { JobStatus, RunStatus, ScheduleType, TriggerType } from '../domain/enums.js';

// The domain enums are the GraphQL enums: same names, same values, stored as is in the database.
registerEnumType(ScheduleType, { name: 'ScheduleType' });
registerEnumType(JobStatus, { name: 'JobStatus' });
registerEnumType(RunStatus, { name: 'RunStatus' });
registerEnumType(TriggerType, { name: 'TriggerType' });

export { JobStatus, RunStatus, ScheduleType, TriggerType };
