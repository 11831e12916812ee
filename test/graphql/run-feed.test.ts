import { describe, expect, test } from 'vitest';
import { RunStatus, TriggerType } from '../../src/domain/enums.js';
import { created, moved, type RunRecord } from '../../src/domain/run.js';
import { Fifo } from '../../src/graphql/fifo.js';
import { MAX_BUFFERED_CHANGES, runChangeFeed } from '../../src/graphql/run-feed.js';
import { RunEvents } from '../../src/runtime/run-events.js';

/** The async iterator behind `runChanged`: order, filtering, unsubscribe, slow consumers. */
const at = new Date('2030-01-01T00:00:00Z');
const run = (id: string, status: RunStatus, jobKey = 'k'): RunRecord => ({
  id,
  jobId: '00000000-0000-4000-8000-000000000001',
  jobKey,
  jobVersion: 1,
  target: 'log',
  payloadSnapshot: null,
  triggerType: TriggerType.SCHEDULED,
  attempt: 1,
  retryOf: null,
  dueAt: null,
  progress: null,
  progressMessage: null,
  heartbeatAt: null,
  scheduledAt: at,
  startedAt: null,
  finishedAt: null,
  status,
  failureCode: null,
  failureMessage: null,
  failureDetails: null,
  output: null,
  runnerInstanceId: null,
  createdAt: at,
  updatedAt: at,
  traceparent: null,
  triggeredBy: null,
});

describe('runChangeFeed', () => {
  test('yields matching changes in the order they were emitted, including those emitted before the first read', async () => {
    const events = new RunEvents();
    const feed = runChangeFeed(events, { jobKey: 'k' });
    events.emit(created(run('a', RunStatus.PENDING)));
    events.emit(created(run('x', RunStatus.PENDING, 'other')));
    events.emit(moved(run('a', RunStatus.RUNNING), RunStatus.PENDING));
    const later = feed.next();
    events.emit(moved(run('a', RunStatus.SUCCEEDED), RunStatus.RUNNING));
    const got = [await later, await feed.next(), await feed.next()].map((r) => [r.value?.run.id, r.value?.previousStatus, r.value?.run.status]);
    expect(got).toEqual([
      ['a', null, 'PENDING'],
      ['a', 'PENDING', 'RUNNING'],
      ['a', 'RUNNING', 'SUCCEEDED'],
    ]);
    await feed.return!();
  });

  test('return() ends a pending read and unsubscribes', async () => {
    const events = new RunEvents();
    const feed = runChangeFeed(events, null);
    const pending = feed.next();
    await feed.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    events.emit(created(run('a', RunStatus.PENDING)));
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });

  test(`a subscriber more than ${MAX_BUFFERED_CHANGES} changes behind is dropped, not buffered without bound`, async () => {
    const events = new RunEvents();
    let dropped = 0;
    const feed = runChangeFeed(events, null, () => (dropped += 1));
    for (let i = 0; i <= MAX_BUFFERED_CHANGES; i += 1) events.emit(created(run(String(i), RunStatus.PENDING)));
    expect(dropped).toBe(1);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });

  test('a burst of a co-due minute (30,000 changes at once), read while more arrive: every change, once, in order', async () => {
    const events = new RunEvents();
    const feed = runChangeFeed(events, null);
    events.publish(Array.from({ length: 30_000 }, (_, i) => created(run(String(i), RunStatus.PENDING))));
    const ids: string[] = [];
    for (let i = 0; i < 20_000; i++) ids.push((await feed.next()).value!.run.id);
    events.publish(Array.from({ length: 5_000 }, (_, i) => created(run(String(30_000 + i), RunStatus.PENDING))));
    for (let i = 0; i < 15_000; i++) ids.push((await feed.next()).value!.run.id);
    expect(ids).toEqual(Array.from({ length: 35_000 }, (_, i) => String(i)));
    await feed.return!();
  });
});

describe('Fifo', () => {
  test('takes what was put, in order, however pushes and shifts interleave (against an array)', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const pushRate of [0.3, 0.5, 0.7]) {
      const fifo = new Fifo<number>();
      const model: number[] = [];
      // What each step saw, from the queue and from the array: compared once at the end.
      const got: (number | undefined)[] = [];
      const want: (number | undefined)[] = [];
      let next = 0;
      for (let step = 0; step < 50_000; step++) {
        if (random() < pushRate) {
          fifo.push(next);
          model.push(next++);
        } else {
          got.push(fifo.shift());
          want.push(model.shift());
        }
        got.push(fifo.length);
        want.push(model.length);
        if (step % 10_007 === 0) {
          fifo.clear();
          model.length = 0;
        }
      }
      while (model.length > 0) {
        got.push(fifo.shift());
        want.push(model.shift());
      }
      expect(got).toEqual(want);
      expect(fifo.shift()).toBeUndefined();
      expect(fifo.length).toBe(0);
    }
  });
});
