import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { graphiqlLink } from '../../src/auth/admin-token.js';
import { GRAPHIQL_TOKEN_STORAGE_KEY } from '../../src/http/graphiql.js';
import { browserTestsRun, launchChromium, patient, recordingContext } from '../support/chromium.js';
import { FAKE_JOB_KEY, startFakeApi, type FakeApi } from './fake-api.js';

/** GraphiQL in headless Chromium (see test/support/chromium.ts for when it runs). */
const run = browserTestsRun('graphiql.browser');

const TOKEN = 'XYZ-graphiql-browser-token/+=&';
/** The default query as sent (GraphiQL prints it compactly). */
const JOBS_QUERY = /jobs\(first: ?10\)\s*\{\s*nodes\s*\{\s*id key status nextRunAt/;

describe.skipIf(!run)('GraphiQL in headless Chromium', () => {
  let api: FakeApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: Request[] = [];
  const websockets: string[] = [];
  const problems: string[] = [];

  /** A fresh profile whose every request is recorded, and aborted unless it goes to the test server. */
  const newContext = () => recordingContext(browser, api.url, { requests, websockets, problems });

  beforeAll(async () => {
    api = await startFakeApi(TOKEN);
    browser = await launchChromium();
    context = await newContext();
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  // Monaco renders spaces as U+00A0: compare with whitespace collapsed.
  const textOf = (selector: string) => async () => (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
  const responseText = textOf('.graphiql-response');
  const queryText = textOf('.graphiql-query-editor');

  it('opens the startup link, moves the token into the headers and out of the address bar', async () => {
    await page.goto(graphiqlLink(api.url, TOKEN), { waitUntil: 'load' });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });

    expect(await page.evaluate<string>('location.href')).toBe(`${api.url}/graphiql`);
    // Replaced, not pushed: no history entry keeps the token (Navigation API, Chromium).
    const entries = await page.evaluate<string[]>('navigation.entries().map((e) => e.url)');
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry).not.toContain('XYZ');
    expect(await page.evaluate<string | null>(`sessionStorage.getItem(${JSON.stringify(GRAPHIQL_TOKEN_STORAGE_KEY)})`)).toBe(TOKEN);

    // The default query is in the editor, the header in the Headers editor.
    await expect.poll(queryText, patient).toContain('jobs(first: 10)');
    await expect.poll(textOf('.graphiql-editor-tool'), patient).toContain(`"Authorization": "Bearer ${TOKEN}"`);

    // Headers are not persisted: the token is in no localStorage value.
    const storedNow = () => page.evaluate<string[]>("Object.keys(localStorage).map((k) => k + '=' + localStorage.getItem(k))");
    // GraphiQL does persist its tabs and query (debounced: wait for it).
    await expect.poll(async () => (await storedNow()).length, patient).toBeGreaterThan(0);
    const stored = await storedNow();
    for (const entry of stored) expect(entry).not.toContain('XYZ');

    // No URL the server saw carried the token.
    for (const r of api.http) expect(r.url).not.toContain('XYZ');
  });

  it('runs the default query with Authorization: Bearer <token>', async () => {
    const before = api.http.length;
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(responseText, patient).toContain(FAKE_JOB_KEY);
    expect(await responseText()).not.toContain('UNAUTHENTICATED');

    const posts = api.http.filter((r) => r.method === 'POST' && r.path === '/graphql');
    expect(posts.length).toBeGreaterThanOrEqual(2); // introspection + the query
    for (const r of posts) expect(r.authorization).toBe(`Bearer ${TOKEN}`);
    const queryPost = api.http.slice(before).find((r) => JOBS_QUERY.test(r.query ?? ''));
    expect(queryPost?.authorization).toBe(`Bearer ${TOKEN}`);

    // The browser's side of the same request.
    const browserPost = requests.find((r) => r.method() === 'POST' && JOBS_QUERY.test(r.postData() ?? ''));
    expect(browserPost).toBeDefined();
    expect((await browserPost!.allHeaders()).authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('stays signed in on reload (sessionStorage) and streams a subscription over graphql-ws with connectionParams', async () => {
    const query = 'subscription Ticks { tick(count: 3) }';
    const before = api.http.length;
    await page.goto(`${api.url}/graphiql?query=${encodeURIComponent(query)}`, { waitUntil: 'load' });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    await expect.poll(queryText, patient).toContain('tick(count: 3)');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(responseText, patient).toContain('3007');
    expect(api.wsConnections.length).toBeGreaterThanOrEqual(1);
    expect(api.wsConnections.at(-1)).toEqual({ authorization: `Bearer ${TOKEN}` });
    const posts = api.http.slice(before).filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(1); // introspection after the reload
    for (const r of posts) expect(r.authorization).toBe(`Bearer ${TOKEN}`);
    expect(websockets).toEqual([`${api.url.replace(/^http/, 'ws')}/graphql`]);
  });

  it('without a token (fresh profile, no fragment) sends no Authorization', async () => {
    const fresh = await newContext();
    const other = await fresh.newPage();
    try {
      const before = api.http.length;
      await other.goto(`${api.url}/graphiql`, { waitUntil: 'load' });
      await other.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
      await other.locator('.graphiql-execute-button').click();
      await expect
        .poll(async () => (await other.locator('.graphiql-response').innerText()).replace(/\s+/g, ' '), patient)
        .toContain('UNAUTHENTICATED');
      const posts = api.http.slice(before).filter((r) => r.method === 'POST');
      expect(posts.length).toBeGreaterThanOrEqual(1);
      for (const r of posts) expect(r.authorization).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });

  it('opens the Explorer, which lists the schema\'s fields and adds the one ticked to the operation', async () => {
    await page.goto(`${api.url}/graphiql?query=${encodeURIComponent('{ __typename }')}`, { waitUntil: 'load' });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    await expect.poll(queryText, patient).toContain('__typename');
    expect(await queryText()).not.toMatch(/\bjobs\b/);
    await page.locator('button[aria-label="Show GraphiQL Explorer"]').click();
    const explorer = page.locator('.graphiql-plugin');
    await expect.poll(async () => (await explorer.innerText()).replace(/\s+/g, ' '), patient).toMatch(/\bjobs\b/);
    await explorer.getByText('jobs', { exact: true }).first().click();
    await expect.poll(queryText, patient).toMatch(/\bjobs\b/);
  });

  it('made no request outside the test server, no CSP violation and no page error', async () => {
    const urls = [...requests.map((r) => r.url()), ...websockets];
    expect(urls.length).toBeGreaterThan(5);
    const httpBase = `${api.url}/`;
    const wsBase = `${api.url.replace(/^http/, 'ws')}/`;
    const foreign = urls.filter((u) => !u.startsWith(httpBase) && !u.startsWith(wsBase) && !/^(data|blob):/.test(u));
    expect(foreign).toEqual([]);
    // Every request to the server is one of ours.
    for (const u of urls.filter((x) => x.startsWith(httpBase))) {
      expect(new URL(u).pathname).toMatch(/^\/(graphiql(\/assets\/[0-9a-f]{12}\/[\w.-]+)?|graphql)$/);
    }
    expect(problems).toEqual([]);
    // Monaco's workers came from the asset files (worker-src 'self').
    expect(urls.some((u) => u.endsWith('/graphql.worker.js'))).toBe(true);
  });
});
