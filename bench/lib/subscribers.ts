/**
 * Subscribers in a process of their own (so that their work is not the server's): connects
 * `n` graphql-ws clients to `url`, subscribes each to `query`, and answers the parent's messages:
 * "reset" zeroes the counts, "count" replies with each subscriber's count.
 *
 *   fork('dist/bench/lib/subscribers.js', [url, token, n, query])
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, token, n, query] = process.argv.slice(2);
const counts = Array.from({ length: Number(n) }, () => 0);
const clients = counts.map(() => createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 }));
clients.forEach((c, i) => c.subscribe({ query }, { next: () => void counts[i]++, error: () => {}, complete: () => {} }));
process.on('message', (m) => {
  if (m === 'reset') {
    counts.fill(0);
    process.send!('reset');
  }
  if (m === 'count') process.send!(counts);
  if (m === 'exit') void Promise.all(clients.map((c) => c.dispose())).then(() => process.exit(0));
});
process.send!('ready');
