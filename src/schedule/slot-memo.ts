import type { CronExpression } from './cron-expression.js';
import { latestSlotBetween, nextSlot } from './slots.js';

/**
 * Slot math shared by the jobs of one schedule (expression and zone). The first slot after `from`
 * is the same for every `from` in [from₀, that slot), and the latest slot up to `until` the same
 * for every `until` in [until₀, the next slot): the thousands of jobs of one schedule armed
 * together (a start, a resync, a co-due slot re-arming) cost one computation, not one each. Exact,
 * not approximate; pure (no clock). Entries live as long as their parsed expression.
 */
export class SlotMemo {
  private readonly nexts = new WeakMap<CronExpression, Map<string, { from: number; next: number | null }>>();
  private readonly latests = new WeakMap<CronExpression, Map<string, { until: number; latest: number | null; next: number | null }>>();

  /** `nextSlot(expression, zone, from)`: the first slot strictly after `from`, or null. */
  next(expression: CronExpression, zone: string, from: Date): Date | null {
    const at = from.getTime();
    let byZone = this.nexts.get(expression);
    if (!byZone) this.nexts.set(expression, (byZone = new Map()));
    const known = byZone.get(zone);
    if (known && known.next !== null && at >= known.from && at < known.next) return new Date(known.next);
    const next = nextSlot(expression, zone, from);
    byZone.set(zone, { from: at, next: next?.getTime() ?? null });
    return next;
  }

  /** `latestSlotBetween(expression, zone, after, until)`: the latest slot in (`after`, `until`], or null. */
  latestBetween(expression: CronExpression, zone: string, after: Date, until: Date): Date | null {
    const at = until.getTime();
    let byZone = this.latests.get(expression);
    if (!byZone) this.latests.set(expression, (byZone = new Map()));
    let known = byZone.get(zone);
    if (!(known && known.next !== null && at >= known.until && at < known.next)) {
      // The latest slot up to `until` whatever `after` (the same look-back as latestSlotBetween's).
      const latest = latestSlotBetween(expression, zone, new Date(0), until);
      known = { until: at, latest: latest?.getTime() ?? null, next: nextSlot(expression, zone, until)?.getTime() ?? null };
      byZone.set(zone, known);
    }
    return known.latest !== null && known.latest > after.getTime() ? new Date(known.latest) : null;
  }
}
