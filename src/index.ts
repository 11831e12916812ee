/** cronql as a library. */
export { createCronql, Cronql, type CronqlOptions } from './app.js';
export { OptionsError } from './options.js';
export { loadConfig, type Config } from './config.js';
export { CronqlError, ConfigError, type ErrorCode } from './errors.js';
export { JobStatus, RunStatus, ScheduleType, TriggerType } from './domain/enums.js';
export type { RunRecord } from './domain/run.js';
export type { JobRecord, RetryPolicy } from './domain/job.js';
export type { RunChange } from './runtime/run-events.js';
export { ManualClock, SystemClock, type Clock } from './runtime/clock.js';
export { TargetError, type TargetContext, type TargetHandler, type TargetMap } from './runtime/targets/target.js';
export { nextSlots, nextSlot, parseCronExpression, canonicalTimezone } from './schedule/index.js';
