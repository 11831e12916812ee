/**
 * Pure schedule math: cron expressions, IANA zones, and the slots they produce under the DST
 * policy of docs/behaviour.md. No clock and no I/O: every function takes its reference instant.
 */
export { parseCronExpression, type CronExpression } from './cron-expression.js';
export { canonicalTimezone } from './timezone.js';
export { lastSlot, latestSlotBetween, latestSlotsBetween, nextSlot, nextSlots, nextSlotsExplained, slotsBetween, type ExplainedSlot, type SlotDst } from './slots.js';
