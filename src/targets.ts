/**
 * `cronql/targets`: what a module of targets needs (the handler's types and the error that sets a
 * run's failure code), without the rest of the library.
 */
import type { TargetMap } from './runtime/targets/target.js';

export { TargetError, type TargetContext, type TargetDefinition, type TargetHandler, type TargetMap, type TargetRunInfo } from './runtime/targets/target.js';

/**
 * Types a map of targets where it is written (a `CRONQL_TARGETS` module, or `createCronql`'s
 * `targets`) and returns it unchanged: `export default defineTargets({ 'billing.close-day': async ({ payload }) => … })`.
 */
export function defineTargets<T extends TargetMap>(targets: T): T {
  return targets;
}
