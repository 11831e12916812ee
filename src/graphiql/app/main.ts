// GraphiQL's page: GraphiQL 5 as the `graphiql` package ships it, with its History and the
// Explorer, over cronql's endpoint (HTTP, and graphql-ws for subscriptions). Bundled by
// scripts/build-graphiql.mjs into a classic script defining `CronqlGraphiQL.render`, which the
// boot script of src/http/graphiql.ts calls once it has taken the token out of the address bar.
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import './style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit';
import { stripIgnoredCharacters } from 'graphql';
import { createClient } from 'graphql-ws';

/** What the server's boot script passes to `CronqlGraphiQL.render` (see src/http/graphiql.ts). */
export interface PageOptions {
  title: string;
  /** The GraphQL endpoint, for HTTP and (as ws:/wss:) for graphql-ws. */
  endpoint: string;
  defaultQuery: string;
  /** Subscriptions go over graphql-ws at the endpoint: the one protocol cronql's API serves them on. */
  subscriptionsProtocol: 'WS';
  shouldPersistHeaders: boolean;
  /** Read by graphql-ws each time it connects. */
  connectionParams: () => Record<string, unknown>;
  onEditHeaders?: (value: string) => void;
  /** Headers of new tabs. */
  headers?: string;
  /** Headers of the tab shown now. */
  initialHeaders?: string;
}

export function render(element: Element, options: PageOptions): void {
  const endpoint = new URL(options.endpoint, location.href);
  const wsEndpoint = new URL(endpoint.href);
  wsEndpoint.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';
  const send = createGraphiQLFetcher({
    url: endpoint.href,
    // Lazy: connects on the first subscription and closes when none is active, so the next
    // connection reads the Headers editor's content again.
    wsClient: createClient({ url: wsEndpoint.href, lazy: true, connectionParams: options.connectionParams }),
  });
  // Operations go without the editor's comments and layout: smaller requests and one-line
  // documents in the server's logs. A document that does not parse goes as typed, for the
  // server to report its syntax error.
  const fetcher: Fetcher = (params, opts) => {
    let query = params.query;
    try {
      query = stripIgnoredCharacters(query);
    } catch {
      // not GraphQL: sent unchanged
    }
    return send({ ...params, query }, opts);
  };

  // `?query=` opens that operation and follows the editor, so a page's address can be shared.
  const address = new URL(location.href);
  const initialQuery = address.searchParams.get('query') ?? undefined;
  const onEditQuery = (query: string) => {
    address.searchParams.set('query', query);
    history.replaceState(history.state, '', address);
  };

  createRoot(element).render(
    createElement(
      GraphiQL,
      {
        fetcher,
        // GraphiQL's own history, and the Explorer (a query builder) that the page had before.
        plugins: [HISTORY_PLUGIN, explorerPlugin()],
        defaultQuery: options.defaultQuery,
        initialQuery,
        defaultHeaders: options.headers,
        initialHeaders: options.initialHeaders,
        shouldPersistHeaders: options.shouldPersistHeaders,
        isHeadersEditorEnabled: true,
        defaultEditorToolsVisibility: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        onEditQuery,
        onEditHeaders: options.onEditHeaders,
      },
      createElement(GraphiQL.Logo, null, options.title),
    ),
  );
}
