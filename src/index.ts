/** cronql as a library. */
export { createCronql, Cronql, type CronqlOptions, type Readiness } from './app.js';
export { OptionsError } from './options.js';
export { loadConfig, type Config } from './config.js';
export { CronqlError, ConfigError, type ErrorCode } from './errors.js';
export { JobStatus, RunStatus, ScheduleType, TriggerType } from './domain/enums.js';
export type { RunRecord } from './domain/run.js';
export type { JobRecord, RetryPolicy } from './domain/job.js';
export type { RunChange } from './runtime/run-events.js';
export { ManualClock, SystemClock, type Clock } from './runtime/clock.js';
export { TargetError, type TargetContext, type TargetDefinition, type TargetHandler, type TargetMap, type TargetRunInfo } from './runtime/targets/target.js';
export { defineTargets } from './targets.js';
export { nextSlots, nextSlot, parseCronExpression, canonicalTimezone } from './schedule/index.js';
export { startHttpServer, type HttpServer, type HttpServerOptions } from './http/server.js';
export { attachCronql, type AttachCronqlOptions, type AttachedCronql, type HostApp, type HostMiddleware } from './http/attach.js';
export type { CronqlHttpOptions } from './http/http-options.js';
export { EmbeddedPostgresMissingError } from './db/embedded/binaries.js';
