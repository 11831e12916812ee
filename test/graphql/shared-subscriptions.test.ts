import { parse } from 'graphql';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import { moved, type RunRecord } from '../../src/domain/run.js';
import { eventually } from '../support/cronql.js';
import { connected, Feed, startApi, wsClient, type Api } from './support.js';

type Event = { runChanged: { run: { id: string; jobKey: string; payloadSnapshot: unknown }; previousStatus: string | null } };

/**
 * Subscribers of the same operation share one execution per change: the document is executed
 * once per (document, variables, role), not once per subscriber, and every subscriber still
 * gets every change, in order. Different variables or roles get their own results.
 */
describe('shared subscriptions', () => {
  let api: Api;
  let run: RunRecord;
  beforeAll(async () => {
    api = await startApi({ role: 'api', listen: false });
    const job = await api.cronql.jobs.create({
      key: 'shared',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 3 * * *',
      payload: { message: 'hi', headers: { authorization: 'Bearer s3cret-value' } },
    });
    run = await api.cronql.runs.runNow(job.id);
  });
  afterAll(async () => {
    await api?.close();
  });

  const doc = parse('subscription($filter: RunFilter) { runChanged(filter: $filter) { run { id jobKey payloadSnapshot } previousStatus } }');

  it('executes once per change and channel, and delivers every change to every subscriber', async () => {
    const hub = api.http.subscriptions!;
    const clients: Client[] = [];
    const open = (token: string) => {
      const c = wsClient(api.wsUrl, token);
      clients.push(c);
      return c;
    };
    const listenersBefore = api.cronql.events.listenerCount;
    try {
      const admins = [0, 1, 2].map(() => new Feed<Event>(open(api.adminToken), doc, { filter: { jobKey: 'shared' } }));
      const viewer = new Feed<Event>(open(api.viewerToken), doc, { filter: { jobKey: 'shared' } });
      const other = new Feed<Event>(open(api.adminToken), doc, { filter: { jobKey: 'someone-else' } });
      await Promise.all(clients.map(connected));
      // Three channels: admins on 'shared', the viewer on 'shared', and 'someone-else'.
      await eventually(() => hub.channelCount === 3);
      expect(api.cronql.events.listenerCount).toBe(listenersBefore + 3);

      const before = hub.executions;
      const changes = 25;
      for (let i = 0; i < changes; i++) api.cronql.events.emit(moved({ ...run, failureMessage: String(i) }, run.status));
      await eventually(() => [...admins, viewer].every((f) => f.events.length === changes));
      // One execution per change for the admins' channel and one for the viewer's; the
      // 'someone-else' channel filters before executing.
      expect(hub.executions - before).toBe(2 * changes);
      expect(other.events).toEqual([]);
      for (const f of admins) expect(f.events).toEqual(admins[0].events);
      expect(JSON.stringify(admins[0].events[0].runChanged.run.payloadSnapshot)).toContain('s3cret-value');
      expect(JSON.stringify(viewer.events[0].runChanged.run.payloadSnapshot)).not.toContain('s3cret-value');

      // The channel closes with its last subscriber; nothing is left listening.
      for (const f of admins) f.close();
      await eventually(() => hub.channelCount === 2);
      viewer.close();
      other.close();
      await eventually(() => hub.channelCount === 0);
      await eventually(() => api.cronql.events.listenerCount === listenersBefore);
    } finally {
      for (const c of clients) await c.dispose();
    }
  });
});
