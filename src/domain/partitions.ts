import { createHash } from 'node:crypto';

/**
 * Sharing the jobs among scheduler instances (docs/scaling.md). Every job key falls in one of
 * PARTITIONS partitions (the first 12 bits of the md5 of its key, so every version of a job stays in
 * its partition, and the database computes the same with `PARTITION_OF_KEY`). Each partition is
 * armed by the `replicas` live schedulers with the highest rendezvous weight for it — a pure
 * function of the live instances, which every instance computes alike: adding an instance moves
 * about 1/N of the partitions to it, losing one moves only its own.
 */
export const PARTITIONS = 4096;

/** The partition of a job key, in SQL over a `job_key` column (the expression index's own text). */
export const PARTITION_OF_KEY = `(('x' || substr(md5(job_key), 1, 3))::bit(12)::int)`;

/** The partition of a job key (the same as PARTITION_OF_KEY). */
export function partitionOfKey(jobKey: string): number {
  const d = createHash('md5').update(jobKey, 'utf8').digest();
  return (d[0] << 4) | (d[1] >> 4);
}

/** The rendezvous (highest-random-weight) weight of an instance for a partition. */
function weight(instanceId: string, partition: number): bigint {
  return createHash('sha256').update(`${instanceId}\u0000${partition}`).digest().readBigUInt64BE(0);
}

/**
 * The instances that arm `partition`: the `replicas` heaviest of `members` (all of them when
 * `replicas` is 0 — every instance arms every job — or when there are fewer).
 */
export function ownersOf(partition: number, members: readonly string[], replicas: number): string[] {
  if (replicas === 0 || members.length <= replicas) return [...members].sort();
  return [...members]
    .map((id) => ({ id, w: weight(id, partition) }))
    .sort((a, b) => (beats(a.w, a.id, b.w, b.id) ? -1 : 1))
    .slice(0, replicas)
    .map((m) => m.id);
}

/** The partitions `me` arms among `members` (which include `me`). */
export function ownedPartitions(me: string, members: readonly string[], replicas: number): Set<number> {
  const owned = new Set<number>();
  const all = members.includes(me) ? members : [...members, me];
  if (replicas === 0 || all.length <= replicas) {
    for (let p = 0; p < PARTITIONS; p++) owned.add(p);
    return owned;
  }
  for (let p = 0; p < PARTITIONS; p++) {
    // `me` is an owner when fewer than `replicas` members outweigh it.
    const mine = weight(me, p);
    let heavier = 0;
    for (const id of all) if (id !== me && beats(weight(id, p), id, mine, me)) heavier++;
    if (heavier < replicas) owned.add(p);
  }
  return owned;
}

/** Whether a member of weight `w` ranks before one of weight `other` (ties: the smaller id). */
function beats(w: bigint, id: string, other: bigint, otherId: string): boolean {
  return w === other ? id < otherId : w > other;
}
