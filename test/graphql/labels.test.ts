import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSelector, matchesSelector, parseLabelSelector, MAX_LABELS, MAX_SELECTOR_LENGTH, MAX_SELECTOR_TERMS } from '../../src/domain/label-selector.js';
import { parse } from 'graphql';
import { eventually } from '../support/cronql.js';
import { codes, Feed, gql, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * Labels, description and owner on jobs, and label selectors through the public API: generated
 * selectors through `jobs(filter: {labelSelector})` and `runs(filter: {labelSelector})` give
 * exactly the jobs the in-memory evaluation (`matchesSelector`) picks over the same labels, so the
 * SQL and the rule agree; INVALID_LABELS and INVALID_SELECTOR in every form of the argument;
 * labels copied to a new version; pauseJobs / resumeJobs.
 */
describe('labels and label selectors', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const as = (token: string) => <R>(query: string, variables?: Record<string, unknown>) => gql<R, unknown>(api.url, query, variables, token);
  const admin = <R>(query: string, variables?: Record<string, unknown>) => as(api.adminToken)<R>(query, variables);
  const jobRows = async () => (await api.cronql.pool.query('SELECT id, status, labels, revision FROM cron_job_definitions ORDER BY id')).rows;

  /** A seeded generator: the same jobs and selectors each run (a failure names its selector). */
  let seed = 20261128;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)];
  const KEYS = ['team', 'env', 'tier', 'legacy', 'app.io/zone'];
  const VALUES = ['billing', 'ops', 'prod', 'dev', 'a', 'b', ''];

  const generatedLabels = (): Record<string, string> => {
    const labels: Record<string, string> = {};
    for (const key of KEYS) if (rand(3) > 0) labels[key] = pick(VALUES);
    return labels;
  };
  const generatedTerm = (): string => {
    const key = pick(KEYS);
    const values = () => [...new Set([pick(VALUES.filter(Boolean)), pick(VALUES.filter(Boolean))])].join(rand(2) ? ',' : ', ');
    switch (rand(7)) {
      case 0: return `${key}=${pick(VALUES)}`;
      case 1: return `${key} == ${pick(VALUES.filter(Boolean))}`;
      case 2: return `${key}!=${pick(VALUES)}`;
      case 3: return `${key} in (${values()})`;
      case 4: return `${key} notin (${values()})`;
      case 5: return key;
      default: return `!${key}`;
    }
  };

  const JOBS = 40;
  const created: { id: string; key: string; labels: Record<string, string> }[] = [];

  it('creates jobs with labels, description and owner; reads them back as given', async () => {
    const inputs = Array.from({ length: JOBS }, (_, i) => ({
      key: `labelled-${i}`, target: 'log', scheduleType: 'RECURRING', cronExpression: '0 3 * * *',
      ...(i % 7 === 0 ? {} : { labels: generatedLabels() }),
      ...(i === 1 ? { description: 'Closes the day', owner: 'billing@example.com' } : {}),
    }));
    const res = await admin<{ createJobs: { id: string; key: string; labels: Record<string, string>; description: string | null; owner: string | null }[] }>(
      `mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { id key labels description owner } }`,
      { inputs },
    );
    expect(res.errors).toBeUndefined();
    for (const [i, job] of res.data!.createJobs.entries()) {
      expect(job.labels).toEqual(inputs[i].labels ?? {});
      created.push(job);
    }
    expect(res.data!.createJobs[1]).toMatchObject({ description: 'Closes the day', owner: 'billing@example.com' });
    expect(res.data!.createJobs[0]).toMatchObject({ labels: {}, description: null, owner: null });
  });

  it('generated selectors: the jobs filter (SQL) picks exactly the jobs matchesSelector picks', async () => {
    const runNow = created.slice(0, 12);
    for (const job of runNow) {
      expect((await admin(`mutation($id: ID!) { runJobNow(id: $id) { id } }`, { id: job.id })).errors).toBeUndefined();
    }
    let nonEmpty = 0;
    for (let n = 0; n < 120; n++) {
      const text = Array.from({ length: 1 + rand(3) }, generatedTerm).join(rand(2) ? ',' : ' , ');
      const selector = parseLabelSelector(text);
      const expected = created.filter((j) => matchesSelector(selector, j.labels)).map((j) => j.key).sort();
      if (expected.length) nonEmpty++;
      const res = await admin<{ jobs: { totalCount: number; nodes: { key: string }[] } }>(
        `query($s: String) { jobs(filter: { labelSelector: $s }, first: 500) { totalCount nodes { key } } }`,
        { s: text },
      );
      expect(res.errors, text).toBeUndefined();
      expect(res.data!.jobs.nodes.map((j) => j.key).sort(), text).toEqual(expected);
      expect(res.data!.jobs.totalCount, text).toBe(expected.length);
      // Runs: those of the jobs picked (a run's labels are its job version's), through both plans.
      if (n % 4 === 0) {
        // totalCount reads the other plan: the selector as a semi-join on the runs.
        const runs = await admin<{ runs: { totalCount: number; nodes: { jobKey: string }[] } }>(
          `query($s: String) { runs(filter: { labelSelector: $s }, first: 100) { totalCount nodes { jobKey } } }`,
          { s: text },
        );
        expect(runs.errors, text).toBeUndefined();
        const ran = runNow.filter((j) => matchesSelector(selector, j.labels)).map((j) => j.key).sort();
        expect(runs.data!.runs.nodes.map((r) => r.jobKey).sort(), text).toEqual(ran);
        expect(runs.data!.runs.totalCount, text).toBe(ran.length);
      }
    }
    // The generator is not degenerate: most selectors pick some jobs, and not all of them.
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('an empty or blank selector filters nothing; null and omitted too', async () => {
    for (const filter of ['{ labelSelector: "" }', '{ labelSelector: "  " }', '{ labelSelector: null }', '{}']) {
      const res = await admin<{ jobs: { totalCount: number } }>(`{ jobs(filter: ${filter}) { totalCount } }`);
      expect(res.data!.jobs.totalCount, filter).toBe(JOBS);
    }
    const vars = await admin<{ jobs: { totalCount: number } }>(`query($s: String) { jobs(filter: { labelSelector: $s }) { totalCount } }`, { s: null });
    expect(vars.data!.jobs.totalCount).toBe(JOBS);
  });

  it('runChanged with a selector delivers the runs of matching jobs only; a bad one fails the subscription', async () => {
    const client = wsClient(api.wsUrl, api.adminToken);
    try {
      const bad = await wsOnce(client, `subscription { runChanged(filter: { labelSelector: "team in" }) { run { id } } }`);
      expect(codes({ errors: bad.errors })).toEqual(['INVALID_SELECTOR']);
      const [billing, other] = [created.find((j) => j.labels.team === 'billing')!, created.find((j) => j.labels.team !== 'billing')!];
      const listeners = api.cronql.events.listenerCount;
      const feed = new Feed<{ runChanged: { run: { jobKey: string } } }>(client, parse(`subscription { runChanged(filter: { labelSelector: "team=billing" }) { run { jobKey } } }`));
      await eventually(() => api.cronql.events.listenerCount > listeners, 30_000);
      // The other job's run first: were it delivered, it would come before the billing one.
      for (const job of [other, billing]) await admin(`mutation($id: ID!) { runJobNow(id: $id) { id } }`, { id: job.id });
      const first = await feed.waitFor(() => true, 30_000);
      expect(first.runChanged.run.jobKey).toBe(billing.key);
      expect(feed.events.every((e) => e.runChanged.run.jobKey === billing.key)).toBe(true);
      feed.close();
    } finally {
      await client.dispose();
    }
  });

  it('a bad selector is INVALID_SELECTOR, as a literal or a variable, on jobs, runs and upcoming filters', async () => {
    const bad = ['team=', 'team=a,', 'Team=a', 'team in ()', 'team>1', 'a'.repeat(MAX_SELECTOR_LENGTH + 1),
      Array.from({ length: MAX_SELECTOR_TERMS + 1 }, (_, i) => `k${i}`).join(',')].filter((s) => s !== 'team=');
    for (const s of bad) {
      const literal = await admin(`{ jobs(filter: { labelSelector: ${JSON.stringify(s)} }) { totalCount } }`);
      expect(codes(literal), s).toEqual(['INVALID_SELECTOR']);
      expect(literal.errors![0].extensions!.details).toMatchObject({ field: 'labelSelector' });
      for (const q of [
        `query($s: String) { jobs(filter: { labelSelector: $s }) { totalCount } }`,
        `query($s: String) { runs(filter: { labelSelector: $s }) { nodes { id } } }`,
        `query($s: String) { upcoming(to: "2030-01-01T00:00:00Z", filter: { labelSelector: $s }) { nodes { slot } } }`,
      ]) {
        expect(codes(await admin(q, { s })), `${q} ${s}`).toEqual(['INVALID_SELECTOR']);
      }
    }
    const message = (await admin(`{ jobs(filter: { labelSelector: "team=billing,env is prod" }) { totalCount } }`)).errors![0];
    expect(message.message).toContain('at position 18');
    expect(message.extensions!.details).toMatchObject({ position: 18, term: 'env is prod' });
  });

  it('bad labels are INVALID_LABELS in every form, and change nothing', async () => {
    const before = await jobRows();
    const tooMany = Object.fromEntries(Array.from({ length: MAX_LABELS + 1 }, (_, i) => [`k${i}`, 'v']));
    const bads: unknown[] = [[], 'team=billing', 3, { Team: 'a' }, { '': 'a' }, { team: 3 }, { team: null }, { team: { a: 'b' } },
      { team: 'a b' }, { team: 'v'.repeat(64) }, { ['k'.repeat(64)]: 'v' }, tooMany];
    const input = (labels: unknown) => ({ key: 'bad-labels', target: 'log', scheduleType: 'RECURRING', cronExpression: '0 3 * * *', labels });
    for (const labels of bads) {
      const variable = await admin(`mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, { input: input(labels) });
      expect(codes(variable), JSON.stringify(labels)).toEqual(['INVALID_LABELS']);
      // As a literal too, when it can be written as one (an object literal's keys are GraphQL names).
      const literal = graphqlLiteral(labels);
      if (literal !== null) {
        const res = await admin(`mutation { createJob(input: { key: "bad-labels", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *", labels: ${literal} }) { id } }`);
        expect(codes(res), literal).toEqual(['INVALID_LABELS']);
      }
      const version = await admin(`mutation($id: ID!, $labels: JSON) { createJobVersion(id: $id, input: { labels: $labels }) { id } }`, { id: created[1].id, labels });
      expect(codes(version), JSON.stringify(labels)).toEqual(['INVALID_LABELS']);
    }
    expect(await jobRows()).toEqual(before);
    // Null and omitted: no labels.
    for (const labels of [null, undefined]) {
      const res = await admin<{ createJob: { labels: unknown; key: string } }>(`mutation($input: CreateJobInput!) { createJob(input: $input) { key labels } }`, {
        input: { ...input(labels), key: `no-labels-${String(labels)}` },
      });
      expect(res.data!.createJob.labels).toEqual({});
    }
    // description and owner: bounded.
    const long = await admin(`mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, { input: { ...input({}), owner: 'o'.repeat(201) } });
    expect(codes(long)).toEqual(['BAD_USER_INPUT']);
  });

  it('a new version copies labels, description and owner when omitted; null clears labels', async () => {
    const source = created[1];
    const FIELDS = 'id version labels description owner';
    const v2 = await admin<{ createJobVersion: { id: string; labels: unknown; description: string; owner: string } }>(
      `mutation($id: ID!) { createJobVersion(id: $id, input: { timeoutSeconds: 30 }) { ${FIELDS} } }`, { id: source.id },
    );
    expect(v2.data!.createJobVersion).toMatchObject({ labels: source.labels, description: 'Closes the day', owner: 'billing@example.com' });
    const v3 = await admin<{ createJobVersion: { id: string; labels: unknown; description: string | null } }>(
      `mutation($id: ID!) { createJobVersion(id: $id, input: { labels: { team: "ops" }, description: null }) { ${FIELDS} } }`, { id: v2.data!.createJobVersion.id },
    );
    expect(v3.data!.createJobVersion).toMatchObject({ labels: { team: 'ops' }, description: null, owner: 'billing@example.com' });
    const v4 = await admin<{ createJobVersion: { labels: unknown } }>(
      `mutation($id: ID!) { createJobVersion(id: $id, input: { labels: null }) { ${FIELDS} } }`, { id: v3.data!.createJobVersion.id },
    );
    expect(v4.data!.createJobVersion.labels).toEqual({});
    // The retired versions keep theirs: a selector over every status finds v3 by team=ops.
    const found = await admin<{ jobs: { nodes: { version: number }[] } }>(`{ jobs(filter: { labelSelector: "team=ops", key: "labelled-1" }) { nodes { version } } }`);
    expect(found.data!.jobs.nodes.map((j) => j.version)).toEqual([3]);
  });

  it('pauseJobs and resumeJobs change the matching jobs as pauseJob and resumeJob do; an empty selector is refused', async () => {
    await admin(`mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { id } }`, {
      inputs: ['x', 'y', 'z'].map((k, i) => ({ key: `bulk-${k}`, target: 'log', scheduleType: 'RECURRING', cronExpression: '0 3 * * *', labels: { bulk: i < 2 ? 'yes' : 'no' } })),
    });
    const statuses = async () =>
      (await admin<{ jobs: { nodes: { key: string; status: string; pauseReason: string | null; pausedUntil: string | null; updatedBy: string }[] } }>(
        `{ jobs(filter: { labelSelector: "bulk", status: [ACTIVE, PAUSED] }) { nodes { key status pauseReason pausedUntil updatedBy } } }`,
      )).data!.jobs.nodes.sort((a, b) => a.key.localeCompare(b.key));

    const before = await jobRows();
    for (const [q, vars] of [
      [`mutation { pauseJobs(labelSelector: "", reason: "x") }`, undefined],
      [`mutation { pauseJobs(labelSelector: "  ", reason: "x") }`, undefined],
      [`mutation($s: String!) { pauseJobs(labelSelector: $s, reason: "x") }`, { s: '' }],
      [`mutation { resumeJobs(labelSelector: "") }`, undefined],
      [`mutation { pauseJobs(labelSelector: "bulk in (", reason: "x") }`, undefined],
    ] as const) {
      expect(codes(await admin(q, vars)), q).toEqual(['INVALID_SELECTOR']);
    }
    expect(codes(await admin(`mutation { pauseJobs(labelSelector: "bulk", reason: "") }`))).toEqual(['REASON_REQUIRED']);
    expect(codes(await admin(`mutation { pauseJobs(reason: "x") }`))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes(await admin(`mutation($s: String!) { pauseJobs(labelSelector: $s, reason: "x") }`, { s: null }))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await as(api.viewerToken)(`mutation { pauseJobs(labelSelector: "bulk", reason: "x") }`))).toEqual(['FORBIDDEN']);
    expect(await jobRows()).toEqual(before);

    const until = new Date(Date.now() + 3_600_000).toISOString();
    const paused = await admin<{ pauseJobs: number }>(`mutation($u: DateTime) { pauseJobs(labelSelector: "bulk=yes", reason: "maintenance", until: $u) }`, { u: until });
    expect(paused.data!.pauseJobs).toBe(2);
    expect(await statuses()).toEqual([
      { key: 'bulk-x', status: 'PAUSED', pauseReason: 'maintenance', pausedUntil: until, updatedBy: 'admin' },
      { key: 'bulk-y', status: 'PAUSED', pauseReason: 'maintenance', pausedUntil: until, updatedBy: 'admin' },
      { key: 'bulk-z', status: 'ACTIVE', pauseReason: null, pausedUntil: null, updatedBy: 'admin' },
    ]);
    // Already paused: not counted, left as they are.
    expect((await admin<{ pauseJobs: number }>(`mutation { pauseJobs(labelSelector: "bulk", reason: "again") }`)).data!.pauseJobs).toBe(1);
    expect((await statuses()).map((j) => j.pauseReason)).toEqual(['maintenance', 'maintenance', 'again']);
    expect((await admin<{ resumeJobs: number }>(`mutation { resumeJobs(labelSelector: "bulk notin (no)") }`)).data!.resumeJobs).toBe(2);
    expect((await statuses()).map((j) => [j.status, j.pausedUntil])).toEqual([['ACTIVE', null], ['ACTIVE', null], ['PAUSED', null]]);
    expect((await admin<{ resumeJobs: number }>(`mutation { resumeJobs(labelSelector: "nothing-has-this") }`)).data!.resumeJobs).toBe(0);
    expect(formatSelector(parseLabelSelector('bulk notin (no)'))).toBe('bulk notin (no)');
  });
});

/** A JSON value as a GraphQL literal, or null when an object key is not a GraphQL name. */
function graphqlLiteral(value: unknown): string | null {
  if (Array.isArray(value)) {
    const items = value.map(graphqlLiteral);
    return items.includes(null) ? null : `[${items.join(', ')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const fields: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      const literal = graphqlLiteral(v);
      if (!/^[A-Za-z_]\w*$/.test(k) || literal === null) return null;
      fields.push(`${k}: ${literal}`);
    }
    return `{ ${fields.join(', ')} }`;
  }
  return JSON.stringify(value);
}
