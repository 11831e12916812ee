import type { IRouter } from 'express';
import { DASHBOARD_CSS, DASHBOARD_JS } from '../dashboard/bundle.generated.js';
import { ICON_SVG } from './icon.js';
import { escapeHtml, failSend, sendStaticFile, staticFile, versionOf, type StaticFile } from './static-files.js';

/**
 * The admin dashboard at `/dashboard`: a small single-page app (sources in src/dashboard/app,
 * built by `npm run build:dashboard` into src/dashboard/bundle.generated.ts, which is committed;
 * a test fails when it drifts from its sources). It is a client of the public GraphQL API only
 * (HTTP POST and graphql-ws), so everything it shows or does, a script could too.
 *
 * Signing in is GraphiQL's: open `/dashboard#token=<token>` (see `dashboardLink`); the bundle
 * moves the token from the fragment, which no browser sends to a server, into `sessionStorage`
 * and out of the address bar. The page holds no data and is public, like GraphiQL's.
 */
export interface DashboardOptions {
  /** Path of the GraphQL endpoint (HTTP and graphql-ws). @default "/graphql" */
  endpoint?: string;
  /** Where the page is served. @default "/dashboard" */
  path?: string;
}

/**
 * Scripts, styles and images from this origin only, and connections to it (HTTP and, through
 * CSP 3's `'self'`, its WebSocket). No inline script or style: the page sets neither.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DashboardBundle {
  /** Path of the page, e.g. `/dashboard`. */
  path: string;
  /** Prefix of the asset URLs, e.g. `/dashboard/assets/<version>`. */
  assetBase: string;
  html: StaticFile;
  /** The page's files by name (`dashboard.js`, `dashboard.css`, `icon.svg`). */
  assets: Map<string, StaticFile>;
}

const rendered = new Map<string, DashboardBundle>();

/** The page and its files; pure and memoised per options (tests start many servers). */
export function renderDashboardBundle(options: DashboardOptions = {}): DashboardBundle {
  const key = JSON.stringify([options.endpoint, options.path]);
  let bundle = rendered.get(key);
  if (!bundle) {
    bundle = render(options);
    rendered.set(key, bundle);
  }
  return bundle;
}

function render(options: DashboardOptions): DashboardBundle {
  const path = (options.path ?? '/dashboard').replace(/\/+$/, '') || '/dashboard';
  const endpoint = options.endpoint ?? '/graphql';
  const files = [
    staticFile('dashboard.js', 'text/javascript; charset=utf-8', DASHBOARD_JS),
    staticFile('dashboard.css', 'text/css; charset=utf-8', DASHBOARD_CSS),
    staticFile('icon.svg', 'image/svg+xml', ICON_SVG),
  ];
  const assetBase = `${path}/assets/${versionOf(files, { endpoint, path })}`;
  // The endpoint travels in a data attribute: no inline script under this CSP.
  const html = staticFile(
    'index.html',
    'text/html; charset=utf-8',
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>cronql dashboard</title>
    <link rel="icon" href="${assetBase}/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="${assetBase}/dashboard.css" />
    <script type="module" src="${assetBase}/dashboard.js"></script>
  </head>
  <body data-endpoint="${escapeHtml(endpoint)}">
    <noscript>The cronql dashboard needs JavaScript.</noscript>
    <div id="app"></div>
  </body>
</html>
`,
  );
  return { path, assetBase, html, assets: new Map(files.map((f) => [f.name, f])) };
}

/**
 * Serves the page at `GET /dashboard` and its files at `GET /dashboard/assets/<version>/<name>`
 * (cached forever: a new build has a new version). Public, like GraphiQL: mount it before any
 * authentication.
 */
export function mountDashboard(app: IRouter, options: DashboardOptions = {}): DashboardBundle {
  const bundle = renderDashboardBundle(options);
  const version = bundle.assetBase.slice(bundle.assetBase.lastIndexOf('/') + 1);
  app.get(bundle.path, (req, res) => {
    // Revalidated every time, so an upgrade's new asset URLs are picked up at once.
    sendStaticFile(req, res, bundle.html, 'no-cache', DASHBOARD_CSP).catch((err) => failSend(res, err));
  });
  app.get(`${bundle.path}/assets/:version/:name`, (req, res) => {
    const file = req.params.version === version ? bundle.assets.get(req.params.name) : undefined;
    if (!file) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    sendStaticFile(req, res, file, 'public, max-age=31536000, immutable', DASHBOARD_CSP).catch((err) => failSend(res, err));
  });
  return bundle;
}
