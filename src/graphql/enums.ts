import { registerEnumType } from 'type-graphql';
import { AfterMode, BackoffKind, CatchUpPolicy, DependencyOutcome, JobStatus, OverlapPolicy, RunStatus, ScheduleType, TriggerType } from '../domain/enums.js';

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

registerEnumType(BackoffKind, {
  name: 'BackoffKind',
  description: 'How long a retry waits after attempt n, from the base delay d (capped by maxDelaySeconds, plus up to 10% jitter).',
  valuesConfig: {
    FIXED: { description: 'd' },
    LINEAR: { description: 'd·n' },
    EXPONENTIAL: { description: 'd·2ⁿ⁻¹' },
  },
});
registerEnumType(OverlapPolicy, {
  name: 'OverlapPolicy',
  description: 'What a slot (or a run-now) does while a run of its job is still active. Every policy holds across instances.',
  valuesConfig: {
    SKIP: { description: 'Recorded SKIPPED/OVERLAP (the default).' },
    BUFFER_ONE: { description: 'At most one waits (PENDING) and starts when the active run ends; later ones are SKIPPED/OVERLAP.' },
    CANCEL_PREVIOUS: { description: 'The active run is canceled (CANCELED/REPLACED; its handler sees its signal) and the new one starts.' },
    ALLOW: { description: 'Up to maxConcurrentRuns run at once; beyond, SKIPPED/OVERLAP.' },
  },
});

registerEnumType(DependencyOutcome, {
  name: 'DependencyOutcome',
  description: 'Which end of an upstream run starts an AFTER job (the final attempt, after retries; CANCELED and SKIPPED runs start none).',
  valuesConfig: {
    SUCCEEDED: { description: 'The upstream run SUCCEEDED (the default).' },
    FAILED: { description: 'The upstream run FAILED.' },
    ANY: { description: 'The upstream run SUCCEEDED or FAILED.' },
  },
});
registerEnumType(AfterMode, {
  name: 'AfterMode',
  description: 'How an AFTER job with several upstreams runs.',
  valuesConfig: {
    ANY: { description: 'After each upstream run that ends as asked (the default).' },
    ALL: { description: 'Once every upstream ended as asked since the job’s last DEPENDENCY run (within afterWindowSeconds, when given).' },
  },
});

export { AfterMode, BackoffKind, CatchUpPolicy, DependencyOutcome, JobStatus, OverlapPolicy, RunStatus, ScheduleType, TriggerType };

/** What daylight-saving time did to a previewed slot (schedule/slots.ts's `mark`). */
export enum DstMark {
  SHIFTED = 'SHIFTED',
  REPEATED = 'REPEATED',
}
registerEnumType(DstMark, {
  name: 'DstMark',
  description: 'What daylight-saving time did to a slot.',
  valuesConfig: {
    SHIFTED: { description: 'The local time asked for did not exist (clocks went forward over it): the slot is that time moved forward by the gap.' },
    REPEATED: { description: 'The slot\'s local time occurs twice that day (clocks go back); the note says which occurrence.' },
  },
});
