import { createServer, Socket, type Server } from 'node:net';

/**
 * A loopback TCP proxy in front of PostgreSQL, to play network failures against real processes:
 *
 *   const proxy = await startTcpProxy(databaseUrl);
 *   spawnCronql({ databaseUrl: proxy.url, … });
 *   proxy.setMode('blackhole');   // new connections are accepted and never answered
 *   proxy.blackholeExisting();    // open connections stop forwarding, both ways, and stay open (half-open)
 *   proxy.resetAll();             // every open connection is reset (RST)
 *   proxy.setMode('pass');        // heal
 *
 * Blackholed bytes are dropped, as a network that silently loses packets would: nothing is
 * refused, nothing is closed, so only the peers' own timeouts can tell.
 */
export type ProxyMode = 'pass' | 'blackhole' | 'reset';

interface Pair {
  client: Socket;
  server: Socket | null;
  /** Forwarding stopped for good (blackholed while open). */
  dead: boolean;
}

export interface TcpProxy {
  port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  readonly mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  blackholeExisting(): void;
  resetAll(): void;
  /** Open client connections. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const targetHost = target.hostname;
  const targetPort = Number(target.port || 5432);
  let mode: ProxyMode = 'pass';
  const pairs = new Set<Pair>();

  const server: Server = createServer((client) => {
    const pair: Pair = { client, server: null, dead: false };
    pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pairs.delete(pair);
      pair.server?.destroy();
    });
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'blackhole') {
      pair.dead = true;
      client.on('data', () => {}); // read and drop
      return;
    }
    const upstream = new Socket();
    pair.server = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    upstream.connect(targetPort, targetHost);
    client.on('data', (chunk) => {
      if (!pair.dead) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.dead) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    port,
    url: url.toString(),
    get mode() {
      return mode;
    },
    setMode(m: ProxyMode) {
      mode = m;
    },
    blackholeExisting() {
      for (const p of pairs) p.dead = true;
    },
    resetAll() {
      for (const p of pairs) {
        p.client.resetAndDestroy();
        p.server?.resetAndDestroy();
      }
      pairs.clear();
    },
    get connections() {
      return pairs.size;
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.server?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
