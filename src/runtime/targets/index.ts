export * from './target.js';
export * from './registry.js';
export * from './address-guard.js';
export * from './load-module.js';
export { createHttpTarget, MAX_REDIRECTS, BODY_LIMIT_BYTES } from './builtin/http.js';
export type { HttpTargetOptions, HttpPayload, HttpOutput } from './builtin/http.js';
export { logTarget, type LogOutput } from './builtin/log.js';
export { sleepTarget, type SleepOutput } from './builtin/sleep.js';
