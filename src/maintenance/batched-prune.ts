/**
 * The loop of a retention that deletes in bounded batches (the audit log's, run logs'): rows older
 * than `days` days go `batchSize` per statement, with a short pause between statements so the fire
 * path gets the database in between; it stops at the first batch that was not full. Safe should two
 * instances prune at once (each statement deletes what it finds).
 */
export async function pruneInBatches(o: {
  /** Rows older than this many days are deleted; 0 (or less) deletes nothing. */
  days: number;
  now: Date;
  batchSize: number;
  /** One statement: deletes up to `limit` rows older than `cutoff`, and says how many. */
  prune(cutoff: Date, limit: number): Promise<number>;
}): Promise<{ deleted: number; cutoff: Date }> {
  const cutoff = new Date(o.now.getTime() - o.days * 86_400_000);
  let deleted = 0;
  if (o.days <= 0) return { deleted, cutoff };
  for (;;) {
    const n = await o.prune(cutoff, o.batchSize);
    deleted += n;
    if (n < o.batchSize) break;
    await new Promise((r) => setTimeout(r, 20)); // let the fire path in between batches
  }
  return { deleted, cutoff };
}
