import type { IRouter } from 'express';
import { EDITOR_WORKER_JS, GRAPHIQL_CSS, GRAPHIQL_JS, GRAPHQL_WORKER_JS, JSON_WORKER_JS } from '../graphiql/bundle.generated.js';
import { ICON_SVG } from './icon.js';
import { escapeHtml, failSend, sendStaticFile, staticFile, versionOf, type StaticFile } from './static-files.js';

/**
 * GraphiQL at `/graphiql`, served entirely by cronql (no CDN, no second GraphQL server): the page
 * is GraphiQL 5 itself (the `graphiql` package with React, Monaco Editor and its three workers,
 * CSS with inlined fonts), bundled from src/graphiql/app by `npm run build:graphiql` into the
 * committed src/graphiql/bundle.generated.ts and served as same-origin files, so the page runs
 * under a Content-Security-Policy without inline scripts.
 *
 * Signing in: open `/graphiql#token=<token>` (see `graphiqlLink`). The fragment never reaches the
 * server; a small script reads it before anything else runs, removes it from the address bar with
 * `history.replaceState`, keeps the token in `sessionStorage` (this tab only, so a reload stays
 * signed in), and pre-fills the Headers editor with `Authorization: Bearer <token>`. Queries and
 * mutations send the Headers editor's content; subscriptions use graphql-ws with
 * `connectionParams: { authorization }` taken from the same editor. Headers are not persisted to
 * `localStorage`.
 */
export interface GraphiqlOptions {
  /** Path of the GraphQL endpoint (HTTP and graphql-ws). @default "/graphql" */
  endpoint?: string;
  /** Where the page is served. @default "/graphiql" */
  path?: string;
  /** Page and GraphiQL title. @default "cronql GraphiQL" */
  title?: string;
  /** The query shown in a new editor. */
  defaultQuery?: string;
}

export const DEFAULT_GRAPHIQL_QUERY = `# cronql GraphiQL
#
# Ctrl-Enter runs the operation under the cursor.
# Requests carry the Headers editor's content: the
# link cronql prints at startup fills in
#   "Authorization": "Bearer <token>"
# otherwise paste your token there.
#
# Live run feed (over graphql-ws):
#   subscription {
#     runChanged { previousStatus run { jobKey status } }
#   }

{
  jobs(first: 10) {
    nodes {
      id
      key
      status
      nextRunAt
    }
  }
}
`;

/** `sessionStorage` key of the token taken from the fragment (tab-scoped; survives reloads only). */
export const GRAPHIQL_TOKEN_STORAGE_KEY = 'cronql:graphiql:token';

/**
 * The policy sent with the page and its files: scripts, workers, styles and connections only
 * to this origin (plus WebSockets for graphql-ws); inline styles because React and Monaco set
 * `style` attributes; `data:` images and fonts because GraphiQL's CSS inlines them.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export type GraphiqlAsset = StaticFile;

export interface GraphiqlBundle {
  /** Path of the page, e.g. `/graphiql`. */
  path: string;
  /** Prefix of the asset URLs, e.g. `/graphiql/assets/<version>`. */
  assetBase: string;
  html: GraphiqlAsset;
  /** The page's files by name (`graphiql.js`, `boot.js`, …). */
  assets: Map<string, GraphiqlAsset>;
  /** Total bytes of the page and its files, uncompressed. */
  totalBytes: number;
}

/** JSON that is also safe inside any JavaScript context (no `</script>`, no U+2028/9 surprises). */
const jsonForJs = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const asset = staticFile;

/** The script loaded first, in `<head>`: takes the token out of the fragment, then boots GraphiQL. */
function bootScript(config: { endpoint: string; title: string; defaultQuery: string; workers: Record<string, string> }): string {
  return `/* cronql GraphiQL bootstrap */
(function () {
  'use strict';
  var CONFIG = ${jsonForJs(config)};
  var STORAGE_KEY = ${jsonForJs(GRAPHIQL_TOKEN_STORAGE_KEY)};

  // 1. The token arrives in the fragment (#token=...), which is never sent to the server.
  //    Take it out of the address bar before anything else runs.
  var token = null;
  var hash = location.hash.replace(/^#/, '');
  if (hash) {
    var rest = [];
    var found = false;
    hash.split('&').forEach(function (part) {
      var eq = part.indexOf('=');
      var key = eq < 0 ? part : part.slice(0, eq);
      if (key === 'token') {
        found = true;
        try { token = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1)); } catch (e) { token = null; }
      } else if (part) {
        rest.push(part);
      }
    });
    if (found) {
      history.replaceState(history.state, '', location.pathname + location.search + (rest.length ? '#' + rest.join('&') : ''));
      try {
        if (token) sessionStorage.setItem(STORAGE_KEY, token);
        else sessionStorage.removeItem(STORAGE_KEY);
      } catch (e) { /* storage disabled: the token lives for this page view only */ }
    }
  }
  if (!token) {
    try { token = sessionStorage.getItem(STORAGE_KEY); } catch (e) { token = null; }
  }

  // 2. Monaco's workers are plain same-origin files (worker-src 'self').
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (moduleId, label) {
      return CONFIG.workers[label] || CONFIG.workers.editorWorkerService;
    },
  };

  function authorizationOf(headersText) {
    try {
      var headers = JSON.parse(headersText || '{}');
      for (var key in headers) {
        if (Object.prototype.hasOwnProperty.call(headers, key) && key.toLowerCase() === 'authorization' && typeof headers[key] === 'string') {
          return headers[key];
        }
      }
    } catch (e) { /* the editor holds invalid JSON: send nothing */ }
    return undefined;
  }

  // 3. Render once the GraphiQL bundle (the last script of <body>) has run (src/graphiql/app/main.ts).
  document.addEventListener('DOMContentLoaded', function () {
    var headers = token ? JSON.stringify({ Authorization: 'Bearer ' + token }, null, 2) : undefined;
    var currentHeaders = headers || '';
    var options = {
      title: CONFIG.title,
      endpoint: CONFIG.endpoint,
      defaultQuery: CONFIG.defaultQuery,
      subscriptionsProtocol: 'WS',
      shouldPersistHeaders: false,
      // graphql-ws reads these when it (re)connects; lazy, so a changed header applies to the
      // next connection (the socket closes when no operation is active).
      connectionParams: function () {
        var authorization = authorizationOf(currentHeaders);
        return authorization ? { authorization: authorization } : {};
      },
      onEditHeaders: function (value) { currentHeaders = value; },
    };
    if (headers) {
      options.headers = headers; // new tabs
      options.initialHeaders = headers; // the tab shown now
    }
    CronqlGraphiQL.render(document.getElementById('root'), options);
  });
})();
`;
}

const rendered = new Map<string, GraphiqlBundle>();

/**
 * Renders the page and its files. Pure, and memoised per options: every server of a process
 * (tests start many) shares one copy of the ~7 MB of strings and their hashes.
 */
export function renderGraphiqlBundle(options: GraphiqlOptions = {}): GraphiqlBundle {
  const key = JSON.stringify([options.endpoint, options.path, options.title, options.defaultQuery]);
  let bundle = rendered.get(key);
  if (!bundle) {
    bundle = render(options);
    rendered.set(key, bundle);
  }
  return bundle;
}

function render(options: GraphiqlOptions): GraphiqlBundle {
  const path = (options.path ?? '/graphiql').replace(/\/+$/, '') || '/graphiql';
  const endpoint = options.endpoint ?? '/graphql';
  const title = options.title ?? 'cronql GraphiQL';
  const defaultQuery = options.defaultQuery ?? DEFAULT_GRAPHIQL_QUERY;

  const statics = [
    asset('graphiql.js', 'text/javascript; charset=utf-8', GRAPHIQL_JS),
    asset('graphiql.css', 'text/css; charset=utf-8', GRAPHIQL_CSS),
    asset('editor.worker.js', 'text/javascript; charset=utf-8', EDITOR_WORKER_JS),
    asset('json.worker.js', 'text/javascript; charset=utf-8', JSON_WORKER_JS),
    asset('graphql.worker.js', 'text/javascript; charset=utf-8', GRAPHQL_WORKER_JS),
    asset('icon.svg', 'image/svg+xml', ICON_SVG),
  ];

  // One version for the whole set: asset URLs change whenever any content or option does, so
  // they can be cached forever.
  const version = versionOf(statics, { endpoint, title, defaultQuery, path });
  const assetBase = `${path}/assets/${version}`;

  const boot = asset(
    'boot.js',
    'text/javascript; charset=utf-8',
    bootScript({
      endpoint,
      title,
      defaultQuery,
      workers: {
        editorWorkerService: `${assetBase}/editor.worker.js`,
        json: `${assetBase}/json.worker.js`,
        graphql: `${assetBase}/graphql.worker.js`,
      },
    }),
  );
  const assets = new Map([...statics, boot].map((a) => [a.name, a]));

  const html = asset(
    'index.html',
    'text/html; charset=utf-8',
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="${assetBase}/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="${assetBase}/graphiql.css" />
    <script src="${assetBase}/boot.js"></script>
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script src="${assetBase}/graphiql.js"></script>
  </body>
</html>
`,
  );
  const totalBytes = html.body.length + [...assets.values()].reduce((n, a) => n + a.body.length, 0);
  return { path, assetBase, html, assets, totalBytes };
}

const send = (req: Parameters<typeof sendStaticFile>[0], res: Parameters<typeof sendStaticFile>[1], file: GraphiqlAsset, cacheControl: string) =>
  sendStaticFile(req, res, file, cacheControl, GRAPHIQL_CSP);

/**
 * Serves GraphiQL at `GET /graphiql` and its files at `GET /graphiql/assets/<version>/<name>`.
 * Everything is rendered once, here; gzip copies are made on first request. Mount it before any
 * authentication middleware: the page holds no data and is public (docs/security.md).
 */
export function mountGraphiql(app: IRouter, options: GraphiqlOptions = {}): GraphiqlBundle {
  const bundle = renderGraphiqlBundle(options);
  const fail = failSend;
  app.get(bundle.path, (req, res) => {
    // The page is tiny; revalidate it so an upgrade's new asset URLs are picked up at once.
    send(req, res, bundle.html, 'no-cache').catch((err) => fail(res, err));
  });
  app.get(`${bundle.path}/assets/:version/:name`, (req, res) => {
    const file = req.params.version === bundle.assetBase.slice(bundle.assetBase.lastIndexOf('/') + 1) ? bundle.assets.get(req.params.name) : undefined;
    if (!file) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    send(req, res, file, 'public, max-age=31536000, immutable').catch((err) => fail(res, err));
  });
  return bundle;
}
