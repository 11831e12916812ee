import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Request } from 'playwright-core';

/**
 * Headless Chromium for the browser tests (Debian's `chromium` package, driven by
 * playwright-core; never `npx playwright install`), as the GraphiQL browser test uses it:
 *
 * - runs when /usr/bin/chromium (or CRONQL_CHROMIUM_PATH) exists; skipped otherwise, with a note;
 * - CRONQL_BROWSER_TESTS=1 makes it mandatory (fails when Chromium is missing);
 *   CRONQL_BROWSER_TESTS=0 skips it even when Chromium is there.
 */
export const CHROMIUM = process.env.CRONQL_CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The deadline of a browser test's `expect.poll` (vitest's default is 1 s): a page on a busy
 * machine may take seconds to render what it will render. A safety net for a condition that
 * must come true, never a speed goal (those are measured by `npm run bench`).
 */
export const patient = { timeout: 30_000, interval: 100 };

/** Whether a browser test file runs; prints why when it does not. */
export function browserTestsRun(name: string): boolean {
  const flag = process.env.CRONQL_BROWSER_TESTS;
  const forced = flag === '1' || flag === 'true';
  const disabled = flag === '0' || flag === 'false';
  const run = forced || (!disabled && existsSync(CHROMIUM));
  if (!run) {
    console.warn(
      disabled
        ? `[${name}] skipped: CRONQL_BROWSER_TESTS=0`
        : `[${name}] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CRONQL_CHROMIUM_PATH; CRONQL_BROWSER_TESTS=1 makes this test mandatory)`,
    );
  }
  return run;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`CRONQL_BROWSER_TESTS=1 but there is no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** What a profile's pages asked for and what went wrong in them. */
export interface Recorder {
  requests: Request[];
  websockets: string[];
  problems: string[];
}

/**
 * A fresh profile whose every request is recorded, and aborted unless it goes to `base`; CSP
 * violations, page errors and console errors are collected as problems.
 */
export async function recordingContext(browser: Browser, base: string, recorder: Recorder, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext(options);
  ctx.on('request', (req) => recorder.requests.push(req));
  ctx.on('page', (p) => {
    p.on('websocket', (ws) => recorder.websockets.push(ws.url()));
    p.on('pageerror', (err) => recorder.problems.push(`pageerror: ${err.message}`));
    p.on('console', (msg) => {
      if (msg.type() === 'error') recorder.problems.push(`console.error: ${msg.text()}`);
    });
  });
  await ctx.route(
    (url) => !url.href.startsWith(`${base}/`),
    (route) => route.abort('blockedbyclient'),
  );
  // Browser-side code is passed as strings: this project's tsconfig has no DOM types.
  await ctx.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
    });`,
  });
  return ctx;
}
