import { describe, expect, test } from 'vitest';
import { GroupCommit, type Outcome } from '../../src/db/group-commit.js';

/**
 * The group commit's queue (db/group-commit.ts), with a `run` that records its batches: a lone
 * call goes out at once, the calls that arrive while a batch is in flight go together in the next
 * (bounded), and every caller gets its own outcome.
 */
function recorder(answer: (n: number) => Outcome<string> = (n) => ({ ok: true, value: `v${n}` })) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const group = new GroupCommit<number, string>(async (items) => {
    batches.push(items);
    await new Promise<void>((r) => gates.push(r));
    return items.map(answer);
  }, 5);
  /** Lets the batch in flight end, once it has started. */
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { group, batches, release };
}

describe('group commit', () => {
  test('a lone call is a batch of one, sent in the turn it was made (no timer)', async () => {
    const { group, batches, release } = recorder();
    const answer = group.add(1);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    await release();
    expect(await answer).toBe('v1');
  });

  test('calls made while a batch is in flight go together in the next, at most maxBatch at a time, in order', async () => {
    const { group, batches, release } = recorder();
    const first = group.add(0);
    await new Promise((r) => setImmediate(r));
    const rest = Array.from({ length: 12 }, (_, i) => group.add(i + 1));
    expect(batches).toEqual([[0]]);
    for (let i = 0; i < 4; i++) await release();
    expect(await Promise.all([first, ...rest])).toEqual(Array.from({ length: 13 }, (_, i) => `v${i}`));
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12]]);
  });

  test('each caller gets its own outcome; a run that throws answers every caller of its batch, and the next batch still goes', async () => {
    const { group, release } = recorder((n) => (n % 2 ? { ok: false, error: new Error(`e${n}`) } : { ok: true, value: `v${n}` }));
    const answers = [1, 2, 3].map((n) => group.add(n).then((v) => v, (e: Error) => e.message));
    await release();
    expect(await Promise.all(answers)).toEqual(['e1', 'v2', 'e3']);

    let calls = 0;
    const failing = new GroupCommit<number, string>(async (items) => {
      if (calls++ === 0) throw new Error('broken');
      return items.map((n) => ({ ok: true, value: `v${n}` }));
    });
    const a = failing.add(1).catch((e: Error) => e.message);
    expect(await a).toBe('broken');
    expect(await failing.add(2)).toBe('v2');
  });
});
