import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, JOB_COLUMNS, RETRY_PARTS, rowToJobSnapshot } from '../../src/domain/job.js';
import { JOB_SETTINGS, SETTING_NAMES } from '../../src/domain/job-fields.js';

/**
 * Snapshots are filled into a copy of one shape (domain/job.ts, for the speed of a start): each
 * must still be the row's own values, with lists and objects of its own.
 */
const COLUMNS = JOB_COLUMNS.split(', ');

function row(i: number, set: boolean): Record<string, unknown> {
  const r: Record<string, unknown> = Object.fromEntries(COLUMNS.map((c) => [c, null]));
  Object.assign(r, {
    id: `00000000-0000-4000-8000-00000000000${i}`,
    job_key: `job-${i}`,
    version: String(i),
    target: 'log',
    schedule_type: 'RECURRING',
    cron_expression: `${i} 3 * * *`,
    timezone: 'UTC',
    status: 'ACTIVE',
    revision: String(10 + i),
    updated_at: new Date(Date.UTC(2026, 0, i)),
  });
  if (!set) return r;
  for (const name of SETTING_NAMES) {
    const spec = JOB_SETTINGS[name];
    if (spec.kind === 'int') r[spec.column] = String(spec.min + i);
    else if (spec.kind === 'enum') r[spec.column] = Object.values(spec.values)[i % Object.values(spec.values).length];
    else if (spec.kind === 'names') r[spec.column] = [`n${i}`];
    else if (spec.kind === 'dependencies') r[spec.column] = JSON.stringify([{ jobKey: `up-${i}`, on: 'SUCCEEDED' }]);
    else if (spec.kind === 'labels') r[spec.column] = { team: `t${i}` };
    else if (spec.kind === 'json') r[spec.column] = { n: i };
    else if (spec.kind === 'text' || spec.kind === 'name') r[spec.column] = `v${i}`;
  }
  Object.assign(r, {
    [RETRY_PARTS.maxAttempts[1]]: 3,
    [RETRY_PARTS.backoff[1]]: 'FIXED',
    [RETRY_PARTS.delaySeconds[1]]: i,
    [RETRY_PARTS.retryOn[1]]: ['TIMEOUT'],
  });
  return r;
}

describe('a job snapshot read from its row', () => {
  it('has every setting at its default when the row says nothing, with lists and objects of its own', () => {
    const a = rowToJobSnapshot(row(1, false));
    const b = rowToJobSnapshot(row(2, false));
    for (const name of SETTING_NAMES) expect(a[name], name).toEqual(DEFAULT_SETTINGS[name]);
    expect(a).toMatchObject({ id: row(1, false).id, jobKey: 'job-1', version: 1, revision: 11, cronExpressions: ['1 3 * * *'], updatedAt: new Date(Date.UTC(2026, 0, 1)) });
    expect(b).toMatchObject({ jobKey: 'job-2', version: 2, revision: 12, cronExpressions: ['2 3 * * *'] });
    a.calendars.push('changed');
    a.labels.changed = 'yes';
    expect(b.calendars).toEqual([]);
    expect(b.labels).toEqual({});
    expect(rowToJobSnapshot(row(3, false)).calendars).toEqual([]);
  });

  it('has each row\'s own values, whatever was read before it', () => {
    const first = rowToJobSnapshot(row(1, true));
    const second = rowToJobSnapshot(row(2, true));
    const empty = rowToJobSnapshot(row(3, false));
    for (const name of SETTING_NAMES) {
      const spec = JOB_SETTINGS[name];
      if (spec.kind === 'int') expect([first[name], second[name]], name).toEqual([spec.min + 1, spec.min + 2]);
      if (spec.kind === 'names') expect([first[name], second[name]], name).toEqual([['n1'], ['n2']]);
      if (spec.kind === 'labels') expect([first[name], second[name]], name).toEqual([{ team: 't1' }, { team: 't2' }]);
      if (spec.kind === 'json') expect([first[name], second[name]], name).toEqual([{ n: 1 }, { n: 2 }]);
      if (spec.kind === 'dependencies') expect(first[name], name).toEqual([{ jobKey: 'up-1', on: 'SUCCEEDED' }]);
      expect(empty[name], name).toEqual(DEFAULT_SETTINGS[name]);
    }
    expect(first.retry).toEqual({ maxAttempts: 3, backoff: 'FIXED', delaySeconds: 1, maxDelaySeconds: null, retryOn: ['TIMEOUT'] });
    expect(second.retry?.delaySeconds).toBe(2);
    // The same keys in the same order for every job.
    expect(Object.keys(first)).toEqual(Object.keys(empty));
  });
});
