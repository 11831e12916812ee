import { describe, expect, test } from 'vitest';
import { RunStatus, TriggerType } from '../../src/domain/enums.js';
import { created, moved, type RunRecord } from '../../src/domain/run.js';
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
});
